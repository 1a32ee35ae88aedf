package org.archpool.worker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Hello;
import org.archpool.protocol.Message;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.archpool.protocol.codec.ProtocolException;

/**
 * A real worker JVM ({@link WorkerMain}) on this test's class path, started through a shell line that may set
 * limits first ({@code ulimit -f 256; }), talking the protocol over its stdin and stdout; its stderr goes to a
 * file. Every line it writes on stdout must be a protocol message: {@link #read} fails on anything else.
 */
final class LaunchedWorker implements AutoCloseable {

    /** What the coordinator gives every worker JVM that matters here: the JVM's own output to stderr. */
    static final List<String> JVM_OPTIONS = List.of("-Xshare:auto", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:+DisplayVMOutputToStderr", "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider");

    private final Process process;
    private final MessageWriter toWorker;
    private final MessageReader fromWorker;
    private final Path stderr;

    private LaunchedWorker(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.toWorker = new MessageWriter(process.getOutputStream());
        this.fromWorker = new MessageReader(process.getInputStream());
    }

    /**
     * @param shellPrefix run by bash before the JVM is exec'd, e.g. {@code ulimit -f 256;}; empty for none
     * @param jvmOptions  more options, after {@link #JVM_OPTIONS}
     */
    static LaunchedWorker start(Path dir, String shellPrefix, String... jvmOptions)
            throws IOException, ProtocolException {
        List<String> java = new ArrayList<>();
        java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        java.addAll(JVM_OPTIONS);
        java.addAll(List.of(jvmOptions));
        java.addAll(List.of("-cp", System.getProperty("java.class.path"), WorkerMain.class.getName(),
                "--worker-id", "t1"));
        StringBuilder line = new StringBuilder(shellPrefix).append(" exec");
        for (String arg : java) {
            line.append(" '").append(arg.replace("'", "'\\''")).append('\'');
        }
        Path stderr = Files.createTempFile(dir, "worker", ".stderr.log");
        Process process = new ProcessBuilder("bash", "-c", line.toString())
                .redirectError(stderr.toFile()).start();
        LaunchedWorker worker = new LaunchedWorker(process, stderr);
        Message hello = worker.read();
        if (!(hello instanceof Hello)) {
            worker.close();
            throw new IllegalStateException("the worker's first message is not hello: " + hello);
        }
        return worker;
    }

    long pid() {
        return process.pid();
    }

    void send(Message message) throws IOException {
        toWorker.write(message);
    }

    Message read() throws IOException, ProtocolException {
        return fromWorker.read();
    }

    /** Reads past the request's progress lines to its result. */
    BuildResult resultOf(String requestId) throws IOException, ProtocolException {
        while (true) {
            Message m = read();
            if (m instanceof BuildResult r && r.requestId().equals(requestId)) {
                return r;
            }
            if (!(m instanceof Progress)) {
                throw new IllegalStateException("expected progress or the result of " + requestId + ", got " + m);
            }
        }
    }

    /** What the worker wrote on its stderr so far. */
    String stderr() throws IOException {
        return Files.readString(stderr);
    }

    /** Sends {@code signal} ({@code QUIT}, {@code TERM}) to the worker JVM. */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    @Override
    public void close() throws IOException {
        if (process.isAlive()) {
            toWorker.write(new Shutdown());
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
