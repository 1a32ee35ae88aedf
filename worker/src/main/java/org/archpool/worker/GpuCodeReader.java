package org.archpool.worker;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.archpool.protocol.Platform;

/** Reads which GPU architectures a built file contains ({@code sm_90}, {@code compute_90}, {@code gfx942}). */
@FunctionalInterface
public interface GpuCodeReader {

    /**
     * The architectures found, in file order, without duplicates; empty when the file holds no GPU code.
     *
     * @throws IOException when the file cannot be read or its GPU code is malformed
     */
    List<String> archs(Path file, Platform platform) throws IOException;
}
