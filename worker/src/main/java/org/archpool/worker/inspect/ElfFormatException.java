package org.archpool.worker.inspect;

/**
 * The file is not a supported ELF file (not ELF at all, 32-bit, big-endian), or its ELF structure is truncated or
 * corrupt: a header, the section header table, the section name table or a section's data lies outside the file.
 */
public class ElfFormatException extends MalformedBinaryException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong with the ELF structure
     */
    public ElfFormatException(String message) {
        super(message);
    }
}
