package org.archpool.worker.inspect;

/**
 * The inspector's memory budget for one untrusted file. A count or size read from a file is never trusted for an
 * allocation: it is checked against the bytes that are really there, and against these limits, which no GPU build
 * comes near but which keep one artifact within a few tens of MiB of a worker's 128 MiB heap whatever its headers
 * claim. A sparse file can be gigabytes long while holding a few bytes, so its length alone bounds nothing.
 * Ranges of the file larger than {@link #HEAP_READ_BYTES} are memory-mapped, never copied to the heap; decoded
 * code is bounded by the inspector's {@code maxCodeBytes}. A file over a limit is not read:
 * {@link TooLargeToInspectException}.
 */
final class InspectLimits {

    /** Sections of one ELF file (about 100 bytes of heap each); {@code -ffunction-sections} objects have thousands. */
    static final int MAX_SECTIONS = 1 << 18;
    /** Bytes of one section name. */
    static final int MAX_SECTION_NAME_BYTES = 4096;
    /** The most bytes of a file read into the heap at once; larger ranges are mapped. */
    static final int HEAP_READ_BYTES = 1 << 20;
    /** Values of one MessagePack metadata document (up to about 70 bytes of heap each). */
    static final int MAX_METADATA_VALUES = 1 << 19;
    /** Members of one static library. */
    static final int MAX_ARCHIVE_MEMBERS = 1 << 17;
    /** Entries of one CUDA fat binary. */
    static final int MAX_FATBIN_ENTRIES = 1 << 18;
    /** Entries of all the offload bundles of one section or file. */
    static final int MAX_BUNDLE_ENTRIES = 1 << 18;

    private InspectLimits() {
    }

    /** @throws TooLargeToInspectException when {@code count} of {@code what} is over {@code limit} */
    static void check(long count, long limit, String what, String where) throws TooLargeToInspectException {
        if (count > limit || count < 0) {
            throw new TooLargeToInspectException(where + " claims " + Long.toUnsignedString(count) + " " + what
                    + ", more than the " + limit + " the inspector reads within its memory budget");
        }
    }
}
