package org.archpool.worker.inspect;

/**
 * The contents of a CUDA fat binary section do not follow the fat binary layout described in {@link CudaFatbin}:
 * a bad magic number, an unsupported version, or a header or size that points outside the section.
 */
public class FatbinFormatException extends MalformedBinaryException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, including the offset inside the section
     */
    public FatbinFormatException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong
     * @param cause   the exception this one adds context to
     */
    public FatbinFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
