import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import org.zeroturnaround.exec.ProcessExecutor;

/**
 * What one process start costs a JVM, the floor under archpool's per-job dispatch: starts {@code setsid true}
 * (what a worker runs for a trivial job) N times with {@link ProcessBuilder}, then N times through zt-exec as
 * the worker does, and prints the wall time per start. Run from the repository root after
 * {@code mvn -B -q package -DskipTests}:
 * {@code /usr/bin/time java -cp "orchestrator/target/archpool/lib/*" bench/spawn/SpawnCost.java 2000}
 * (GNU time adds the CPU time of the whole run; compare {@code time (for i in $(seq 2000); do setsid true; done)}).
 */
public final class SpawnCost {

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        measure(n / 10, false); // warm-up, not printed
        measure(n, true);
    }

    private static void measure(int n, boolean print) throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            Process p = new ProcessBuilder("setsid", "true").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor();
        }
        long plain = System.nanoTime();
        OutputStream sink = OutputStream.nullOutputStream();
        for (int i = 0; i < n; i++) {
            new ProcessExecutor().command("setsid", "true").redirectOutput(sink).redirectErrorStream(true)
                    .exitValueAny().closeTimeout(5, TimeUnit.SECONDS).start().getFuture().get();
        }
        long zt = System.nanoTime();
        if (print) {
            System.out.printf("%d starts of 'setsid true': ProcessBuilder %.2f ms each, zt-exec %.2f ms each%n", n,
                    (plain - start) / 1e6 / n, (zt - plain) / 1e6 / n);
        }
    }
}
