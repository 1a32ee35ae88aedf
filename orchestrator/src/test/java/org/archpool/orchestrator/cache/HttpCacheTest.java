package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HttpCache} against a server in this JVM on 127.0.0.1 that keeps what is PUT, as nginx with WebDAV does, and
 * can be told to answer otherwise: an error status, a redirect, no answer, half a body.
 */
class HttpCacheTest {

    private static final String KEY = "ab".repeat(32);
    private static final String SECRET = "s3cr3t-token-value";
    /** What a body that "never ends" sends: far more than any bound, so that a client that reads it all fails. */
    private static final long ENDLESS = 256L * 1024 * 1024;

    /** One request as the server saw it. */
    record Seen(String method, String path, String authorization, byte[] body) {
    }

    private final Map<String, byte[]> stored = new ConcurrentHashMap<>();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    /** Answers a request itself when it returns true; the store answers otherwise. */
    private volatile Function<HttpExchange, Boolean> override = x -> false;
    private ExecutorService executor;
    private HttpServer server;
    private String base;

    @BeforeEach
    void start() throws IOException {
        executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-http");
            t.setDaemon(true);
            return t;
        });
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort() + "/team/cache";
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            byte[] body = x.getRequestBody().readAllBytes();
            String path = x.getRequestURI().getRawPath();
            seen.add(new Seen(x.getRequestMethod(), path, x.getRequestHeaders().getFirst("Authorization"), body));
            if (override.apply(x)) {
                return;
            }
            switch (x.getRequestMethod()) {
                case "PUT" -> {
                    stored.put(path, body);
                    x.sendResponseHeaders(201, -1);
                }
                case "DELETE" -> x.sendResponseHeaders(stored.remove(path) == null ? 404 : 204, -1);
                case "HEAD" -> {
                    byte[] b = stored.get(path);
                    x.sendResponseHeaders(b == null ? 404 : 200, -1);
                }
                default -> {
                    byte[] b = stored.get(path);
                    if (b == null) {
                        byte[] page = "<html>404 Not Found</html>".getBytes(StandardCharsets.UTF_8);
                        x.sendResponseHeaders(404, page.length);
                        x.getResponseBody().write(page);
                    } else {
                        x.sendResponseHeaders(200, b.length == 0 ? -1 : b.length);
                        x.getResponseBody().write(b);
                    }
                }
            }
        }
    }

    private HttpCache cache(String header, Duration timeout) {
        return new HttpCache(URI.create(base), header, timeout);
    }

    private HttpCache cache() {
        return cache(null, Duration.ofSeconds(5));
    }

    /** Answers every request with {@code status} and a short body. */
    private void answerEverything(int status) {
        override = x -> {
            try {
                if (x.getRequestMethod().equals("HEAD")) {
                    x.sendResponseHeaders(status, -1);
                } else {
                    byte[] page = ("<html>" + status + "</html>").getBytes(StandardCharsets.UTF_8);
                    x.sendResponseHeaders(status, page.length);
                    x.getResponseBody().write(page);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return true;
        };
    }

    @Test
    void whatIsNotThereIsNullOrFalse(@TempDir Path dir) throws IOException {
        HttpCache cache = cache();
        Path into = dir.resolve("blob");

        assertThat(cache.readAction(KEY)).isNull();
        assertThat(cache.hasBlob(KEY)).isFalse();
        assertThat(cache.readBlob(KEY, 1, into)).isFalse();
        assertThat(into).as("no file is left for a blob that is not there").doesNotExist();
        cache.removeAction(KEY); // absent is not an error
        assertThat(seen).extracting(Seen::method, Seen::path).containsExactly(
                org.assertj.core.groups.Tuple.tuple("GET", "/team/cache/ac/" + KEY),
                org.assertj.core.groups.Tuple.tuple("HEAD", "/team/cache/cas/" + KEY),
                org.assertj.core.groups.Tuple.tuple("GET", "/team/cache/cas/" + KEY),
                org.assertj.core.groups.Tuple.tuple("DELETE", "/team/cache/ac/" + KEY));
    }

    @Test
    void whatIsPutArrivesWholeAndIsReadBack(@TempDir Path dir) throws IOException {
        HttpCache cache = cache();
        byte[] entry = "{\"key\":\"entry\"}".getBytes(StandardCharsets.UTF_8);
        byte[] blob = new byte[3 * 1024 * 1024 + 17];
        new java.util.Random(7).nextBytes(blob);
        Path from = Files.write(dir.resolve("artifact.o"), blob);

        cache.writeAction(KEY, entry);
        cache.writeBlob(KEY, from);

        assertThat(stored.get("/team/cache/ac/" + KEY)).isEqualTo(entry);
        assertThat(stored.get("/team/cache/cas/" + KEY)).isEqualTo(blob);
        assertThat(cache.readAction(KEY)).isEqualTo(entry);
        assertThat(cache.hasBlob(KEY)).isTrue();
        Path into = dir.resolve("copy");
        assertThat(cache.readBlob(KEY, blob.length, into)).isTrue();
        assertThat(Files.readAllBytes(into)).isEqualTo(blob);

        cache.removeAction(KEY);
        assertThat(stored).doesNotContainKey("/team/cache/ac/" + KEY);
    }

    @Test
    void theHeaderGoesWithEveryRequest(@TempDir Path dir) throws IOException {
        HttpCache cache = cache("Authorization: Bearer " + SECRET, Duration.ofSeconds(5));

        cache.writeAction(KEY, new byte[] {1});
        cache.writeBlob(KEY, Files.write(dir.resolve("a"), new byte[] {2}));
        cache.readAction(KEY);
        cache.hasBlob(KEY);
        cache.readBlob(KEY, 1, dir.resolve("b"));
        cache.removeAction(KEY);

        assertThat(seen).hasSize(6);
        assertThat(seen).extracting(Seen::method).containsExactly("PUT", "PUT", "GET", "HEAD", "GET", "DELETE");
        assertThat(seen).allSatisfy(s -> assertThat(s.authorization()).isEqualTo("Bearer " + SECRET));
    }

    @Test
    void withoutAHeaderNoneIsSent() throws IOException {
        cache().readAction(KEY);

        assertThat(seen).singleElement().extracting(Seen::authorization).isNull();
    }

    @Test
    void anAnswerOtherThan2xxIsAnErrorNamingTheMethodAndStatus(@TempDir Path dir) throws IOException {
        HttpCache cache = cache();
        Path file = Files.write(dir.resolve("a"), new byte[] {1});
        answerEverything(500);

        assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(IOException.class)
                .hasMessageContaining("GET").hasMessageContaining("500");
        assertThatThrownBy(() -> cache.hasBlob(KEY)).isInstanceOf(IOException.class)
                .hasMessageContaining("HEAD").hasMessageContaining("500");
        assertThatThrownBy(() -> cache.readBlob(KEY, 1, dir.resolve("b"))).isInstanceOf(IOException.class)
                .hasMessageContaining("GET").hasMessageContaining("500");
        assertThatThrownBy(() -> cache.removeAction(KEY)).isInstanceOf(IOException.class)
                .hasMessageContaining("DELETE").hasMessageContaining("500");
        answerEverything(403);
        assertThatThrownBy(() -> cache.writeBlob(KEY, file)).isInstanceOf(IOException.class)
                .hasMessageContaining("PUT").hasMessageContaining("403");
        answerEverything(401);
        assertThatThrownBy(() -> cache.writeAction(KEY, new byte[] {1})).isInstanceOf(IOException.class)
                .hasMessageContaining("PUT").hasMessageContaining("401");
    }

    @Test
    void aPutAnswered404IsAnError() {
        HttpCache cache = cache();
        answerEverything(404);

        assertThatThrownBy(() -> cache.writeAction(KEY, new byte[] {1})).isInstanceOf(IOException.class)
                .hasMessageContaining("PUT").hasMessageContaining("404");
    }

    @Test
    void aRedirectIsNotFollowedSoTheHeaderGoesNowhereElse() throws IOException {
        List<String> elsewhere = new CopyOnWriteArrayList<>();
        HttpServer other = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        other.createContext("/", x -> {
            elsewhere.add(x.getRequestMethod() + " " + x.getRequestHeaders().getFirst("Authorization"));
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        other.start();
        try {
            override = x -> {
                try {
                    x.getResponseHeaders().add("Location", "http://localhost:" + other.getAddress().getPort() + "/x");
                    x.sendResponseHeaders(302, -1);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return true;
            };
            HttpCache cache = cache("Authorization: Bearer " + SECRET, Duration.ofSeconds(5));

            assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(IOException.class)
                    .hasMessageContaining("GET").hasMessageContaining("302");
            assertThatThrownBy(() -> cache.writeAction(KEY, new byte[] {1})).isInstanceOf(IOException.class)
                    .hasMessageContaining("PUT").hasMessageContaining("302");
            assertThat(elsewhere).as("requests that reached the host the redirect named").isEmpty();
        } finally {
            other.stop(0);
        }
    }

    @Test
    void aServerThatDoesNotAnswerTimesOut() {
        override = x -> {
            await(release);
            return false;
        };
        HttpCache cache = cache(null, Duration.ofMillis(300));

        long started = System.nanoTime();
        assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(IOException.class)
                .hasMessageContaining("GET");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void aServerThatStallsInTheMiddleOfABodyTimesOut(@TempDir Path dir) {
        override = x -> {
            try {
                x.sendResponseHeaders(200, 1000);
                x.getResponseBody().write(new byte[10]);
                x.getResponseBody().flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            await(release);
            return true;
        };
        HttpCache cache = cache(null, Duration.ofMillis(300));

        long started = System.nanoTime();
        assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(IOException.class)
                .hasMessageContaining("GET").hasMessageContaining("300 ms");
        assertThatThrownBy(() -> cache.readBlob(KEY, 1000, dir.resolve("b"))).isInstanceOf(IOException.class)
                .hasMessageContaining("GET");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    /**
     * Answers a {@code GET} of {@code path} with 200 and {@code length} bytes, declared in a Content-Length, or
     * chunked without one when {@code declared} is false; what was written is counted in {@code sent}. The
     * writing stops at the first failure, such as the client's hanging up.
     */
    private void stream(String path, long length, boolean declared, AtomicLong sent) {
        override = x -> {
            if (!x.getRequestMethod().equals("GET") || !x.getRequestURI().getRawPath().equals(path)) {
                return false;
            }
            byte[] chunk = new byte[64 * 1024];
            try {
                x.sendResponseHeaders(200, declared ? length : 0);
                OutputStream body = x.getResponseBody();
                for (long left = length; left > 0; left -= chunk.length) {
                    body.write(chunk, 0, (int) Math.min(chunk.length, left));
                    sent.addAndGet(Math.min(chunk.length, left));
                }
                body.flush();
            } catch (IOException e) {
                // the client hung up: what it was sent is in sent
            }
            return true;
        };
    }

    @Test
    void anEntryLongerThanAnEntryMayBeIsRefusedByItsContentLengthWithoutReadingIt() {
        AtomicLong sent = new AtomicLong();
        stream("/team/cache/ac/" + KEY, ActionEntry.MAX_BYTES + 1L, true, sent);
        HttpCache cache = cache(null, Duration.ofSeconds(20));

        long started = System.nanoTime();
        assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("GET /team/cache/ac/" + KEY)
                .hasMessageContaining("Content-Length of " + (ActionEntry.MAX_BYTES + 1L) + " bytes")
                .hasMessageContaining(ActionEntry.MAX_BYTES + " bytes, the most an entry may have");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void anEntryThatRunsPastTheBoundWithoutAContentLengthIsCutOff() {
        AtomicLong sent = new AtomicLong();
        stream("/team/cache/ac/" + KEY, ENDLESS, false, sent);
        HttpCache cache = cache(null, Duration.ofSeconds(20));

        long started = System.nanoTime();
        assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("GET /team/cache/ac/" + KEY)
                .hasMessageContaining("longer than " + ActionEntry.MAX_BYTES + " bytes, the most an entry may have");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertThat(sent.get()).as("bytes the server got out before the client hung up").isLessThan(ENDLESS / 4);
    }

    @Test
    void aBlobLongerOrShorterThanItsEntryRecordsIsRefusedAndLeavesNoFile(@TempDir Path dir) throws IOException {
        byte[] blob = new byte[100_000];
        stored.put("/team/cache/cas/" + KEY, blob);
        HttpCache cache = cache(null, Duration.ofSeconds(20));
        Path into = dir.resolve("blob");

        assertThatThrownBy(() -> cache.readBlob(KEY, blob.length - 1, into)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("GET /team/cache/cas/" + KEY).hasMessageContaining("Content-Length of 100000")
                .hasMessageContaining("more than 99999 bytes, the size its entry records");
        assertThat(into).doesNotExist();
        assertThatThrownBy(() -> cache.readBlob(KEY, blob.length + 1, into)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("fewer than 100001 bytes, the size its entry records");
        assertThat(into).doesNotExist();

        AtomicLong sent = new AtomicLong();
        stream("/team/cache/cas/" + KEY, blob.length, false, sent);
        assertThatThrownBy(() -> cache.readBlob(KEY, blob.length - 1, into)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("longer than 99999 bytes, the size its entry records");
        assertThat(into).doesNotExist();
        assertThatThrownBy(() -> cache.readBlob(KEY, blob.length + 1, into)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("ended after 100000 bytes, fewer than 100001 bytes, the size its entry records");
        assertThat(into).doesNotExist();
        assertThat(cache.readBlob(KEY, blob.length, into)).as("the size it has, without a Content-Length").isTrue();
        assertThat(into).hasSize(blob.length);
    }

    @Test
    void aBlobThatNeverEndsIsCutOffOneChunkPastItsSize(@TempDir Path dir) throws IOException {
        AtomicLong sent = new AtomicLong();
        stream("/team/cache/cas/" + KEY, ENDLESS, false, sent);
        HttpCache cache = cache(null, Duration.ofSeconds(20));
        Path into = dir.resolve("blob");

        long started = System.nanoTime();
        assertThatThrownBy(() -> cache.readBlob(KEY, 1024 * 1024, into)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("GET /team/cache/cas/" + KEY)
                .hasMessageContaining("longer than 1048576 bytes, the size its entry records");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertThat(into).doesNotExist();
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("files left in the folder").isEmpty();
        }
        assertThat(sent.get()).as("bytes the server got out before the client hung up").isLessThan(ENDLESS / 4);
    }

    @Test
    void aClosedPortIsAnError() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        HttpCache cache = new HttpCache(URI.create("http://127.0.0.1:" + port + "/c"), null, Duration.ofSeconds(5));

        assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(IOException.class)
                .hasMessageContaining("GET").hasMessageContaining("http://127.0.0.1:" + port + "/c");
    }

    @Test
    void describeShowsTheUrlWithoutCredentials() {
        HttpCache withHeader = cache("Authorization: Bearer " + SECRET, Duration.ofSeconds(5));
        HttpCache withUserInfo = new HttpCache(URI.create("https://user:pa55word@cache.example:8443/ci?token=t0k"),
                null, Duration.ofSeconds(5));

        assertThat(withHeader.describe()).isEqualTo(base).doesNotContain(SECRET);
        assertThat(withUserInfo.describe()).isEqualTo("https://cache.example:8443/ci")
                .doesNotContain("pa55word").doesNotContain("user").doesNotContain("t0k");
    }

    @Test
    void errorsNameNoCredentials() {
        answerEverything(500);
        HttpCache cache = cache("Authorization: Bearer " + SECRET, Duration.ofSeconds(5));

        assertThatThrownBy(() -> cache.readAction(KEY)).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.toString()).doesNotContain(SECRET));
    }

    @Test
    void aGoodUrlAndHeaderHaveNoProblem() {
        assertThat(HttpCache.problem("http://cache.example:8080/archpool", null)).isNull();
        assertThat(HttpCache.problem("https://cache.example/", "Authorization: Bearer " + SECRET)).isNull();
        assertThat(HttpCache.problem("http://127.0.0.1:9090", "X-Api-Key:" + SECRET)).isNull();
    }

    @Test
    void aUrlThatIsNotOneIsRefused() {
        assertThat(HttpCache.problem("http://cache example/", null)).contains("is not a URL");
        assertThat(HttpCache.problem("ftp://cache.example/c", null)).contains("http:// or https://");
        assertThat(HttpCache.problem("cache.example/c", null)).contains("http:// or https://");
        assertThat(HttpCache.problem("http:///c", null)).contains("with a host");
    }

    @Test
    void credentialsOrAQueryInTheUrlAreRefused() {
        assertThat(HttpCache.problem("http://user:pw@cache.example/c", null))
                .contains("credentials").contains("ARCHPOOL_REMOTE_CACHE_HEADER");
        assertThat(HttpCache.problem("http://cache.example/c?token=t", null)).contains("query");
    }

    @Test
    void aHeaderThatIsNotOneIsRefusedWithoutShowingItsValue() {
        for (String header : new String[] {SECRET, ": " + SECRET, "Authorization: Bearer " + SECRET + "\nX: y",
                "Authorization: Bearer " + SECRET + "\r", "Connection: " + SECRET, "Host: " + SECRET,
                "Content-Length: " + SECRET, "Bad Name: " + SECRET, "Authorization: Bearer " + SECRET + "\u0001"}) {
            assertThat(HttpCache.problem("http://cache.example/c", header)).as(header)
                    .contains("ARCHPOOL_REMOTE_CACHE_HEADER").doesNotContain(SECRET);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
