package org.archpool.worker.inspect;

/**
 * One entry of an ELF file's section header table.
 *
 * @param index  position in the section header table (0 is the reserved null section)
 * @param name   name from the section header string table; empty when the file has no such table
 * @param type   {@code sh_type}, e.g. {@link #SHT_PROGBITS} or {@link #SHT_NOBITS}
 * @param offset {@code sh_offset}: where the section's data starts in the file
 * @param size   {@code sh_size}: the section's size in bytes (in memory, for {@link #SHT_NOBITS})
 */
public record ElfSection(int index, String name, int type, long offset, long size) {

    /** {@code sh_type} of a section whose data is stored in the file (code, data, and {@code .nv_fatbin}). */
    public static final int SHT_PROGBITS = 1;

    /** {@code sh_type} of a section that occupies no bytes in the file, such as {@code .bss}. */
    public static final int SHT_NOBITS = 8;

    /**
     * Checks that the name is not null.
     *
     * @param index  position in the section header table
     * @param name   the section's name
     * @param type   {@code sh_type}
     * @param offset {@code sh_offset}
     * @param size   {@code sh_size}
     */
    public ElfSection {
        if (name == null) {
            throw new NullPointerException("name");
        }
    }

    /**
     * @return whether the section's bytes are stored in the file; false for {@link #SHT_NOBITS} sections
     */
    public boolean hasFileData() {
        return type != SHT_NOBITS;
    }
}
