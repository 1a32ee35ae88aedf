package org.archpool.worker.inspect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the ELF image of an uncompressed cubin says about itself: the architecture number in its header, to
 * cross-check a fat binary entry header, and whether it holds any code.
 *
 * <p>A cubin is a 64-bit little-endian ELF image with {@code e_machine == EM_CUDA} (190) and {@code EI_OSABI} 0x41.
 * Where {@code e_flags} keeps the SM number depends on {@code EI_ABIVERSION}, as in LLVM's
 * {@code BinaryFormat/ELF.h}:
 * <ul>
 *   <li>ABI version 8 ({@code ELFABIVERSION_CUDA_V2}, every cubin CUDA 13 emits, sm_75 to sm_100 alike): bits
 *       8&ndash;15 ({@code EF_CUDA_SM_MASK = 0xff00}). Measured with nvcc 13.0: sm_90 gives {@code 0x05005a04}
 *       or {@code 0x06005a04}, sm_100 {@code 0x05006402} or {@code 0x06006402}.</li>
 *   <li>ABI version 7 ({@code ELFABIVERSION_CUDA_V1}, older toolkits): bits 0&ndash;7 ({@code EF_CUDA_SM}).
 *       Taken from LLVM; not measured here, as no older toolkit was at hand.</li>
 * </ul>
 * The {@code a}/{@code f} variant is not visible in {@code e_flags}: an sm_90a cubin carries the same
 * {@code e_flags} as an sm_90 one. Only the number can be cross-checked.
 *
 * <p>A cubin's functions are in sections named {@code .text.<function>}. The cubin nvcc's device-link step adds to
 * every library or executable it links (see {@link CudaFatbin}) has none when the linked code is not relocatable
 * device code: it holds no kernels, only the link's bookkeeping, and is built for the architectures given to the
 * link step, which need not be those the kernels were compiled for.
 */
final class CubinElf {

    private static final int ELFABIVERSION_CUDA_V1 = 7;
    private static final int ELFABIVERSION_CUDA_V2 = 8;
    private static final String CODE_SECTION_PREFIX = ".text.";

    private CubinElf() {
    }

    /**
     * @param payload a fat binary entry's payload, from position to limit
     * @return the payload read as a cubin, or empty when it is not a readable CUDA ELF image; a cubin that cannot be
     *         read only means the cross-checks cannot be made, which is not an error of the fat binary
     * @throws IOException {@link TooLargeToInspectException} if its headers claim more than the inspector's budget
     */
    static Optional<ElfFile> open(ByteBuffer payload) throws IOException {
        try {
            ElfFile elf = ElfFile.of(payload);
            return elf.machine() == ElfFile.EM_CUDA ? Optional.of(elf) : Optional.empty();
        } catch (ElfFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * @param cubin a cubin
     * @return the SM number from its {@code e_flags}, or empty for an ABI version this method does not know
     */
    static OptionalInt sm(ElfFile cubin) {
        int flags = cubin.flags();
        int sm;
        if (cubin.abiVersion() == ELFABIVERSION_CUDA_V2) {
            sm = (flags >>> 8) & 0xff;
        } else if (cubin.abiVersion() == ELFABIVERSION_CUDA_V1) {
            sm = flags & 0xff;
        } else {
            return OptionalInt.empty();
        }
        return sm == 0 ? OptionalInt.empty() : OptionalInt.of(sm);
    }

    /**
     * @param cubin a cubin
     * @return how many {@code .text.*} sections, each the code of one function, it has
     */
    static int codeSections(ElfFile cubin) {
        int count = 0;
        for (ElfSection section : cubin.sections()) {
            if (section.name().startsWith(CODE_SECTION_PREFIX)) {
                count++;
            }
        }
        return count;
    }
}
