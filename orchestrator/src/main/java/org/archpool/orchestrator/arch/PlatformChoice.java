package org.archpool.orchestrator.arch;

import org.archpool.protocol.Platform;

/** {@code --platform}: a platform, or {@code auto} to pick the one whose devices or settings are present. */
public enum PlatformChoice {
    AUTO, HIP, CUDA;

    /** The platform chosen, or null for {@link #AUTO}. */
    public Platform platform() {
        return switch (this) {
            case AUTO -> null;
            case HIP -> Platform.HIP;
            case CUDA -> Platform.CUDA;
        };
    }

    public static PlatformChoice of(Platform platform) {
        return platform == Platform.HIP ? HIP : CUDA;
    }
}
