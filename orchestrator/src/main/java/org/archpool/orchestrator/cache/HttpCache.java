package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.archpool.protocol.UntrustedText;

/**
 * A remote cache that speaks the HTTP layout of Bazel's remote cache: {@code GET}, {@code HEAD} and {@code PUT} of
 * {@code BASE/ac/<key>} and {@code BASE/cas/<sha256>}, {@code DELETE} of a rejected entry. nginx with WebDAV
 * ({@code dav_methods PUT DELETE; create_full_put_path on;}) and bazel-remote (with action-entry validation off:
 * archpool's entries are JSON, not Bazel's ActionResult) serve it. One optional header (authentication) goes with
 * every request; it is never written anywhere. Every answer other than 2xx or 404, and every time-out, is an
 * {@link IOException}: {@link BuildCache} reports the first one and stops using the remote for the build. Redirects
 * are not followed (Java's client would send the header on to whatever host one names): one is an answer other
 * than 2xx.
 */
public final class HttpCache implements CacheBackend {

    private final URI base;
    private final String shown;
    private final String headerName;
    private final String headerValue;
    private final Duration timeout;
    private final HttpClient client;

    /**
     * @param header  {@code Name: value} sent with every request, or null
     * @param timeout for connecting and for each whole request, its body included
     */
    public HttpCache(URI base, String header, Duration timeout) {
        String text = base.toString();
        this.base = URI.create(text.endsWith("/") ? text : text + "/");
        this.shown = base.getScheme() + "://" + base.getHost() + (base.getPort() >= 0 ? ":" + base.getPort() : "")
                + (base.getRawPath() == null ? "" : base.getRawPath());
        if (header != null) {
            int colon = header.indexOf(':');
            this.headerName = header.substring(0, colon).strip();
            this.headerValue = header.substring(colon + 1).strip();
        } else {
            this.headerName = null;
            this.headerValue = null;
        }
        this.timeout = timeout;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /**
     * Checks a {@code --remote-cache} URL and the header variable's value.
     *
     * @return why they cannot be used, or null
     */
    public static String problem(String url, String header) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (Exception e) {
            return "--remote-cache " + url + " is not a URL (" + e.getMessage() + "); give one such as"
                    + " http://cache.example:8080/archpool";
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            return "--remote-cache " + url + " is not an http:// or https:// URL with a host; give one such as"
                    + " http://cache.example:8080/archpool";
        }
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null) {
            return "--remote-cache must not carry credentials or a query in its URL, since URLs are written to logs"
                    + " and reports; put an authentication header in ARCHPOOL_REMOTE_CACHE_HEADER instead";
        }
        if (header != null && (header.indexOf(':') <= 0 || header.contains("\n") || header.contains("\r"))) {
            return "ARCHPOOL_REMOTE_CACHE_HEADER must be one header as 'Name: value' (e.g. 'Authorization: Bearer"
                    + " TOKEN'); fix or unset it";
        }
        if (header != null) {
            // what Java's client refuses (Host, Connection, Content-Length…, characters a header cannot hold) would
            // otherwise fail every request; the value is a secret, so only the name is shown
            String name = header.substring(0, header.indexOf(':')).strip();
            try {
                HttpRequest.newBuilder(uri).header(name, header.substring(header.indexOf(':') + 1).strip());
            } catch (IllegalArgumentException e) {
                return "ARCHPOOL_REMOTE_CACHE_HEADER holds a header that cannot be sent (its name "
                        + UntrustedText.quote(name) + " is not allowed, or its value holds a character a header"
                        + " cannot); give one such as 'Authorization: Bearer TOKEN'";
            }
        }
        return null;
    }

    private HttpRequest.Builder request(String kind, String name) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(kind + "/" + name)).timeout(timeout);
        if (headerName != null) {
            b.header(headerName, headerValue);
        }
        return b;
    }

    @Override
    public byte[] readAction(String key) throws IOException {
        HttpResponse<byte[]> r = send(request("ac", key).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        return r.statusCode() == 404 ? null : r.body();
    }

    @Override
    public void writeAction(String key, byte[] entry) throws IOException {
        send(request("ac", key).PUT(HttpRequest.BodyPublishers.ofByteArray(entry)).build(),
                HttpResponse.BodyHandlers.discarding());
    }

    @Override
    public boolean readBlob(String sha256, Path into) throws IOException {
        HttpResponse<Path> r = send(request("cas", sha256).GET().build(),
                HttpResponse.BodyHandlers.ofFile(into, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        if (r.statusCode() == 404) {
            Files.deleteIfExists(into);
            return false;
        }
        return true;
    }

    @Override
    public boolean hasBlob(String sha256) throws IOException {
        HttpResponse<Void> r = send(request("cas", sha256).method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.discarding());
        return r.statusCode() != 404;
    }

    @Override
    public void writeBlob(String sha256, Path from) throws IOException {
        send(request("cas", sha256).PUT(HttpRequest.BodyPublishers.ofFile(from)).build(),
                HttpResponse.BodyHandlers.discarding());
    }

    @Override
    public void removeAction(String key) throws IOException {
        send(request("ac", key).DELETE().build(), HttpResponse.BodyHandlers.discarding());
    }

    @Override
    public String describe() {
        return shown;
    }

    /**
     * Sends {@code request} and waits for the whole answer, its body included, at most the time-out: the client's
     * own time-out ends when the headers have arrived, so a server that stalls in the middle of a body would hold
     * the job for as long as it likes.
     */
    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> body) throws IOException {
        HttpResponse<T> r;
        CompletableFuture<HttpResponse<T>> pending = null;
        try {
            pending = client.sendAsync(request, body);
            r = pending.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            pending.cancel(true);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw new IOException(request.method() + " " + shown + " failed: no complete answer within "
                    + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IOException(request.method() + " " + shown + " failed: " + cause, cause);
        } catch (RuntimeException e) {
            throw new IOException(request.method() + " " + shown + " failed: " + e, e);
        }
        int status = r.statusCode();
        if (status == 404 && !"PUT".equals(request.method())) {
            return r;
        }
        if (status < 200 || status >= 300) {
            throw new IOException(request.method() + " " + request.uri().getRawPath() + " answered HTTP " + status);
        }
        return r;
    }
}
