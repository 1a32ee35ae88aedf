package org.archpool.worker.inspect;

/**
 * An AMD GPU code object (an ELF file with {@code e_machine} {@code EM_AMDGPU}) cannot be read: it is not an HSA
 * code object, it is of a code object version or for a processor this package does not know, its metadata note is
 * truncated or is not valid MessagePack, or its metadata contradicts its ELF header. See
 * {@link AmdCodeObjectReader}.
 */
public class AmdCodeObjectFormatException extends MalformedBinaryException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, including where (note, offset) when that helps
     */
    public AmdCodeObjectFormatException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong
     * @param cause   the exception this one adds context to
     */
    public AmdCodeObjectFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
