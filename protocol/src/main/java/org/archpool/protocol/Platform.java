package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** A GPU programming platform: which compiler family and which architecture names apply. */
public enum Platform {
    /** AMD GPUs through HIP/ROCm; architectures are {@code gfx…} target IDs. */
    HIP,
    /** NVIDIA GPUs through CUDA; architectures are CMake-style compute capabilities ({@code 90}, {@code 90a}). */
    CUDA;

    /** The lower-case name used on the wire and on the command line. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** CMake's name of the platform's language: {@code HIP}, {@code CUDA} (as in {@code CMAKE_<LANG>_ARCHITECTURES}). */
    public String cmakeLanguage() {
        return name();
    }

    /** Parses {@code hip} or {@code cuda}, case-insensitively. */
    @JsonCreator
    public static Platform fromWire(String name) {
        for (Platform p : values()) {
            if (p.wireName().equalsIgnoreCase(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown platform '" + name + "' (expected hip or cuda)");
    }
}
