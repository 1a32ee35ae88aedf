package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
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
 * than 2xx. No body is read further than it may go: an entry up to {@link ActionEntry#MAX_BYTES}, a blob up to the
 * size its entry records, the body of an answer other than 2xx not at all (it is discarded as it arrives); a longer
 * one is cut off at its {@code Content-Length} or at the first chunk too many, and is {@link CacheBackend.WrongSize}.
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

    /**
     * At most {@link ActionEntry#MAX_BYTES} of the answer are read: a longer one (by its {@code Content-Length}, or
     * counted as it arrives) is cut off there and is {@link CacheBackend.WrongSize}.
     */
    @Override
    public byte[] readAction(String key) throws IOException {
        HttpResponse<byte[]> r = send(request("ac", key).GET().build(), info -> ok(info)
                ? new BoundedBody<>(HttpResponse.BodySubscribers.ofByteArray(), info, 0, ActionEntry.MAX_BYTES,
                        "the answer", ActionEntry.MAX_BYTES + " bytes, the most an entry may have")
                : HttpResponse.BodySubscribers.replacing(null));
        return r.statusCode() == 404 ? null : r.body();
    }

    @Override
    public void writeAction(String key, byte[] entry) throws IOException {
        send(request("ac", key).PUT(HttpRequest.BodyPublishers.ofByteArray(entry)).build(),
                HttpResponse.BodyHandlers.discarding());
    }

    /**
     * A {@code Content-Length} other than {@code size} is refused before the body is read; without one, the body is
     * written to {@code into} until it ends or runs one byte past {@code size}.
     */
    @Override
    public boolean readBlob(String sha256, long size, Path into) throws IOException {
        HttpResponse<Path> r;
        try {
            r = send(request("cas", sha256).GET().build(), info -> ok(info)
                    ? new BoundedBody<>(HttpResponse.BodySubscribers.ofFile(into, StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.WRITE), info, size, size, "the blob",
                            size + " bytes, the size its entry records")
                    : HttpResponse.BodySubscribers.replacing(null));
        } catch (IOException e) {
            Files.deleteIfExists(into);
            throw e;
        }
        return r.statusCode() != 404;
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
            if (cause instanceof WrongSize wrong) {
                throw new WrongSize(request.method() + " " + request.uri().getRawPath() + " was refused: "
                        + wrong.getMessage(), wrong);
            }
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

    /** Whether the answer is 2xx, whose body is read; any other's is discarded as it arrives. */
    private static boolean ok(HttpResponse.ResponseInfo info) {
        return info.statusCode() >= 200 && info.statusCode() < 300;
    }

    /**
     * A body passed on to {@code downstream} only while it can still be {@code min} to {@code max} bytes long. An
     * answer whose {@code Content-Length} says otherwise is refused before a byte of it is read (and before
     * {@code downstream}, which may create a file, is started); one that runs past {@code max} is cancelled at that
     * chunk, and one that ends short of {@code min} is refused when it ends. A refused body fails with
     * {@link CacheBackend.WrongSize}, and {@code downstream} is told so, so that it closes what it opened.
     */
    private static final class BoundedBody<T> implements HttpResponse.BodySubscriber<T> {

        private final HttpResponse.BodySubscriber<T> downstream;
        private final OptionalLong declared;
        private final long min;
        private final long max;
        private final String what;
        private final String bound;
        private final CompletableFuture<T> body = new CompletableFuture<>();
        private Flow.Subscription subscription;
        private long received;
        private boolean refused;

        /**
         * @param what  what is read, for messages ({@code the blob})
         * @param bound the size it must have, or at most, for messages ({@code 12 bytes, the size its entry records})
         */
        BoundedBody(HttpResponse.BodySubscriber<T> downstream, HttpResponse.ResponseInfo info, long min, long max,
                    String what, String bound) {
            this.downstream = downstream;
            this.declared = info.headers().firstValueAsLong("Content-Length");
            this.min = min;
            this.max = max;
            this.what = what;
            this.bound = bound;
            downstream.getBody().whenComplete((value, failure) -> {
                if (failure == null) {
                    body.complete(value);
                } else {
                    body.completeExceptionally(failure);
                }
            });
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (declared.isPresent() && (declared.getAsLong() < min || declared.getAsLong() > max)) {
                refused = true;
                body.completeExceptionally(new WrongSize(what + " has a Content-Length of " + declared.getAsLong()
                        + " bytes; " + (declared.getAsLong() > max ? "more" : "fewer") + " than " + bound));
                s.cancel();
                return;
            }
            downstream.onSubscribe(s);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            if (refused) {
                return;
            }
            for (ByteBuffer item : items) {
                received += item.remaining();
            }
            if (received > max) {
                refuse(new WrongSize(what + " is longer than " + bound + "; it was cut off there"));
                subscription.cancel();
                return;
            }
            downstream.onNext(items);
        }

        @Override
        public void onError(Throwable failure) {
            if (!refused) {
                downstream.onError(failure);
            }
        }

        @Override
        public void onComplete() {
            if (refused) {
                return;
            }
            if (received < min) {
                refuse(new WrongSize(what + " ended after " + received + " bytes, fewer than " + bound));
                return;
            }
            downstream.onComplete();
        }

        @Override
        public CompletionStage<T> getBody() {
            return body;
        }

        /** Fails the body with {@code failure} first, so that it is what the caller sees, then {@code downstream}. */
        private void refuse(WrongSize failure) {
            refused = true;
            body.completeExceptionally(failure);
            downstream.onError(failure);
        }
    }
}
