package org.archpool.worker.inspect;

import java.io.IOException;

/**
 * A file could be read but its contents do not have the expected binary structure: it is not an ELF file, it is
 * an ELF variant this package does not support, or a header, table or offset inside it is truncated or corrupt.
 *
 * <p>Distinct from a plain {@link IOException}, which means the file itself could not be read. The message always
 * says what was wrong and, where it helps, at which offset.
 */
public class MalformedBinaryException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong with the file, for a person to read
     */
    public MalformedBinaryException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong
     * @param cause   the exception this one adds context to
     */
    public MalformedBinaryException(String message, Throwable cause) {
        super(message, cause);
    }
}
