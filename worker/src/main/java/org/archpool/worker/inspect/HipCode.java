package org.archpool.worker.inspect;

import java.util.Objects;

/**
 * One AMD GPU code object, found in a clang offload bundle or as a file of its own.
 *
 * @param source     where: {@code .hip_fatbin} (the section of an object, library or executable), {@code bundle}
 *                   (a bundle file, such as {@code hipcc --genco} writes), {@code code object} (a bare code object
 *                   file), prefixed with the archive member for static libraries
 * @param bundleId   the bundle entry's id, e.g. {@code hipv4-amdgcn-amd-amdhsa--gfx90a}; null for a bare code
 *                   object
 * @param targetId   the target ID, e.g. {@code gfx90a} or {@code gfx90a:xnack+}: the code object's own (from its
 *                   ELF header) when it was read, else the bundle entry's
 * @param compressed whether the bundle holding it was compressed
 * @param size       the code object's size in bytes (uncompressed)
 * @param codeObject what the code object says about itself, or null when it was not read: too large to buffer,
 *                   or not an ELF code object (LLVM bitcode of {@code -fgpu-rdc} objects)
 */
public record HipCode(String source, String bundleId, String targetId, boolean compressed, long size,
                      AmdCodeObject codeObject) {
    public HipCode {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(targetId, "targetId");
    }
}
