package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Assumptions;

/**
 * The remote build cache the tests of {@code --remote-cache} run against: nginx as {@code scripts/nginx-cache.sh}
 * runs it. The one {@code scripts/test.sh} started ({@code ARCHPOOL_TEST_REMOTE_CACHE} its URL,
 * {@code ARCHPOOL_NGINX_DIR} its folder), else one started here for these tests and stopped after them. Without nginx
 * the tests are skipped; with {@code CI=true} they fail.
 */
final class NginxCache implements AutoCloseable {

    /** The URL of the running cache, as the script prints it. */
    static final String URL_VARIABLE = "ARCHPOOL_TEST_REMOTE_CACHE";
    /** The script's folder. */
    static final String DIR_VARIABLE = "ARCHPOOL_NGINX_DIR";

    final String url;
    final Path dir;
    private final boolean ours;

    private NginxCache(String url, Path dir, boolean ours) {
        this.url = url;
        this.dir = dir;
        this.ours = ours;
    }

    static NginxCache require() throws Exception {
        Map<String, String> env = System.getenv();
        String url = env.get(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            String folder = env.get(DIR_VARIABLE);
            Path dir = folder != null && !folder.isBlank() ? Path.of(folder)
                    : Path.of(env.getOrDefault("TMPDIR", "/tmp"), "archpool-nginx-cache");
            Path urlFile = dir.resolve("url");
            if (!Files.isRegularFile(urlFile) || !Files.readString(urlFile).strip().equals(url.strip())) {
                unavailable(URL_VARIABLE + " is " + url + " but " + dir + " is not the folder of that cache (set "
                        + DIR_VARIABLE + " to the folder scripts/nginx-cache.sh start used)");
            }
            NginxCache cache = new NginxCache(url.strip(), dir, false);
            cache.checkAnswers();
            return cache;
        }
        Optional<Path> nginx = RequiredTool.findOnPath("nginx", env)
                .or(() -> RequiredTool.executable("/usr/sbin", "nginx"));
        RequiredTool.require(nginx, "nginx", "install it with scripts/setup-debian.sh --nginx, or start a cache with"
                + " scripts/nginx-cache.sh start and set " + URL_VARIABLE, env);
        Path dir = Files.createTempDirectory("archpool-it-nginx");
        script(dir, "start");
        NginxCache cache = new NginxCache(script(dir, "url").strip(), dir, true);
        cache.checkAnswers();
        return cache;
    }

    private static String script(Path dir, String action) throws Exception {
        Path script = Archpool.repo().resolve("scripts/nginx-cache.sh");
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), action);
        pb.environment().put(DIR_VARIABLE, dir.toString());
        Path err = Files.createTempFile("nginx-cache", ".err");
        try {
            Process p = pb.redirectError(err.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("nginx-cache.sh " + action + ": " + Files.readString(err)).isZero();
            return out;
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private void checkAnswers() {
        URI uri = URI.create(url);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5000);
        } catch (IOException e) {
            unavailable("the remote cache " + url + " does not answer (" + e + "); start it with"
                    + " scripts/nginx-cache.sh start");
        }
    }

    private static void unavailable(String why) {
        if (RequiredTool.isCi(System.getenv())) {
            fail(why + "; with CI=true, scripts/test.sh must have started it");
        }
        Assumptions.abort(why);
    }

    /** A path under the cache's root that no other test uses, e.g. {@code it-3f2a…}. */
    static String uniquePrefix(String name) {
        return "it-" + name + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /** The secret that {@code /auth/} requires, as {@code Authorization: Bearer <secret>}. */
    String secret() throws IOException {
        return Files.readString(dir.resolve("secret")).strip();
    }

    /** The file nginx keeps for {@code path} (under the base URL), e.g. {@code it-x/cas/<sha256>}. */
    Path file(String path) {
        return dir.resolve("dav").resolve(path);
    }

    /** Every file nginx holds under {@code path}, relative to it. */
    List<String> files(String path) throws IOException {
        Path root = file(path);
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).sorted().toList();
        }
    }

    /** The requests nginx logged for paths under {@code path}, each as {@code METHOD /path}. */
    List<String> requests(String path) throws IOException {
        String under = " /" + path + "/";
        try (Stream<String> lines = Files.lines(dir.resolve("access.log"))) {
            return lines.filter(l -> l.contains(under)).map(l -> {
                String request = l.substring(l.indexOf('"') + 1);
                return request.substring(0, request.lastIndexOf(" HTTP/"));
            }).toList();
        }
    }

    @Override
    public void close() throws Exception {
        if (ours) {
            script(dir, "stop");
        }
    }
}
