package org.archpool.orchestrator.arch;

import org.archpool.protocol.Platform;

/**
 * {@code --platform}: a platform, {@code auto} to pick the one whose devices or settings are present, or {@code all}
 * for a target per platform whose architectures are given or detected.
 */
public enum PlatformChoice {
    AUTO, HIP, CUDA, ALL;

    /** The platform chosen, or null for {@link #AUTO} and {@link #ALL}. */
    public Platform platform() {
        return switch (this) {
            case AUTO, ALL -> null;
            case HIP -> Platform.HIP;
            case CUDA -> Platform.CUDA;
        };
    }

    public static PlatformChoice of(Platform platform) {
        return platform == Platform.HIP ? HIP : CUDA;
    }
}
