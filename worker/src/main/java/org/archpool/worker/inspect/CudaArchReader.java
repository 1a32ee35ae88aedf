package org.archpool.worker.inspect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Tells which GPU architectures an ELF file (object, shared library, executable) carries device code for, by
 * reading the CUDA fat binary in it.
 *
 * <p>{@link #read(Path)} reads the {@value #FATBIN_SECTION} section: the device code the CUDA runtime loads. An
 * object compiled with {@code -rdc=true} (relocatable device code) has no such section; its code is in
 * {@value #RELOCATABLE_FATBIN_SECTION}, which {@link #readRelocatable(Path)} reads. A library linked from such
 * objects has both: a {@value #FATBIN_SECTION} with the device-linked code, which is what runs, and a copy of the
 * objects' {@value #RELOCATABLE_FATBIN_SECTION}.
 *
 * <p>Stateless and thread-safe. Reads only the ELF headers and the fat binary section, never the whole file.
 *
 * @see CudaFatbin for the format and what nvcc emits
 */
public final class CudaArchReader {

    /** The section holding the fat binary that the CUDA runtime registers at load time. */
    public static final String FATBIN_SECTION = ".nv_fatbin";

    /** The section holding the fat binary of relocatable device code ({@code -rdc=true}) in objects. */
    public static final String RELOCATABLE_FATBIN_SECTION = "__nv_relfatbin";

    /** Creates a reader; it holds no state. */
    public CudaArchReader() {
    }

    /**
     * Reads the entries of the file's {@value #FATBIN_SECTION} section.
     *
     * @param file an ELF file
     * @return the entries in section order; empty when the file has no {@value #FATBIN_SECTION} section
     * @throws ElfFormatException    if the file is not a 64-bit little-endian ELF file or is corrupt
     * @throws FatbinFormatException if the fat binary is corrupt
     * @throws IOException           if the file cannot be read
     */
    public List<FatbinEntry> read(Path file) throws IOException {
        return readSection(file, FATBIN_SECTION);
    }

    /**
     * Reads the entries of the file's {@value #RELOCATABLE_FATBIN_SECTION} section, present in objects compiled
     * with {@code -rdc=true} or with {@code code=lto_NN}.
     *
     * @param file an ELF file
     * @return the entries in section order; empty when the file has no {@value #RELOCATABLE_FATBIN_SECTION} section
     * @throws ElfFormatException    if the file is not a 64-bit little-endian ELF file or is corrupt
     * @throws FatbinFormatException if the fat binary is corrupt
     * @throws IOException           if the file cannot be read
     */
    public List<FatbinEntry> readRelocatable(Path file) throws IOException {
        return readSection(file, RELOCATABLE_FATBIN_SECTION);
    }

    /**
     * The architectures the file has device code for: the names of {@link #read(Path)}'s entries, such as
     * {@code sm_90}, {@code sm_90a} and {@code compute_90} (see {@link FatbinEntry#archName()}), leaving out cubins
     * known to hold no code ({@link FatbinEntry#isEmptyCubin()}). Those are the device-link cubins nvcc adds to
     * every library and executable it links; they are built for the link step's architecture, so counting them
     * would let a library whose kernels were compiled for sm_80 only pass for sm_90 when linked with
     * {@code -arch=sm_90}. {@link #read(Path)} returns every entry.
     *
     * @param file an ELF file
     * @return the distinct names in file order (the order of their first entry); empty when the file has no
     *         {@value #FATBIN_SECTION} section
     * @throws IOException as {@link #read(Path)}
     */
    public Set<String> archNames(Path file) throws IOException {
        Set<String> names = new LinkedHashSet<>();
        for (FatbinEntry entry : read(file)) {
            if (!entry.isEmptyCubin()) {
                names.add(entry.archName());
            }
        }
        return Collections.unmodifiableSet(names);
    }

    private static List<FatbinEntry> readSection(Path file, String sectionName) throws IOException {
        Optional<ByteBuffer> section;
        try (ElfFile elf = ElfFile.open(file)) {
            section = elf.section(sectionName);
        }
        if (section.isEmpty()) {
            return List.of();
        }
        try {
            return CudaFatbin.parse(section.get()).entries();
        } catch (FatbinFormatException e) {
            throw new FatbinFormatException(file + ", section " + sectionName + ": " + e.getMessage(), e);
        }
    }
}
