package org.archpool.worker.inspect;

import java.util.Objects;

/**
 * One image of a CUDA fat binary, with where it was found.
 *
 * @param source where: a section such as {@code .nv_fatbin}, prefixed with the archive member for static libraries
 *               ({@code libk.a(k.o) .nv_fatbin})
 * @param entry  the fat binary entry
 */
public record CudaCode(String source, FatbinEntry entry) {
    public CudaCode {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(entry, "entry");
    }
}
