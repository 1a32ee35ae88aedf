package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.Objects;

/**
 * What a run is asked to build for: one {@link ArchResolver.Request} per target ({@code --platform}/{@code --arch},
 * or one {@code --target PLATFORM:ARCHS} per platform), or, with {@code --platform all}, one per platform of which
 * those that resolve are the run's targets.
 *
 * @param requests        one per platform, at least one
 * @param whicheverResolve {@code --platform all}: a platform that does not resolve is left out, and only none
 *                        resolving stops the run
 */
public record TargetRequest(List<ArchResolver.Request> requests, boolean whicheverResolve) {

    public TargetRequest {
        requests = List.copyOf(requests);
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("a run needs at least one target");
        }
        requests.forEach(r -> Objects.requireNonNull(r, "request"));
    }

    /** The one-target form: {@code --platform}, {@code --arch}, {@code --fallback-arch}. */
    public static TargetRequest one(ArchResolver.Request request) {
        return new TargetRequest(List.of(request), false);
    }
}
