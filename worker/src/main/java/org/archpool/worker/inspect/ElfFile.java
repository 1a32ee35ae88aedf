package org.archpool.worker.inspect;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A read-only view of a 64-bit little-endian ELF file (relocatable object, shared library or executable) or of an
 * ELF image in memory (such as a cubin inside a fat binary): its file header fields and its section header table.
 *
 * <p>Only what is asked for is read: {@link #open(Path)} reads the 64-byte file header, the section header table and
 * the section name table; a section's data is read only when {@link #section(String)} or {@link #contents(ElfSection)}
 * asks for it. Libraries of hundreds of megabytes are therefore cheap to open.
 *
 * <p>Every offset and size taken from the file is checked against the file's length before it is used. A file that
 * is not ELF, is 32-bit or big-endian, or whose headers are truncated or point outside the file is rejected with an
 * {@link ElfFormatException} whose message says what is wrong; no unchecked exception escapes for malformed input.
 *
 * <p>The extended numbering of ELF is honoured: when {@code e_shnum} is 0 the section count is read from section
 * 0's {@code sh_size}, and when {@code e_shstrndx} is {@code SHN_XINDEX} the name table's index from its
 * {@code sh_link}.
 *
 * <p>Instances from {@link #open(Path)} hold an open file channel; close them. Instances from {@link #of(ByteBuffer)}
 * hold nothing and need no closing. Both are safe to use from several threads.
 */
public final class ElfFile implements Closeable {

    /** {@code e_type} of a relocatable object file ({@code .o}). */
    public static final int ET_REL = 1;
    /** {@code e_type} of a non-position-independent executable. */
    public static final int ET_EXEC = 2;
    /** {@code e_type} of a shared library or a position-independent executable. */
    public static final int ET_DYN = 3;
    /** {@code e_machine} of x86-64. */
    public static final int EM_X86_64 = 62;
    /** {@code e_machine} of AArch64. */
    public static final int EM_AARCH64 = 183;
    /** {@code e_machine} of NVIDIA CUDA device code (cubins). */
    public static final int EM_CUDA = 190;

    /** The magic number that starts every ELF file, {@code "\x7fELF"} read little-endian. */
    static final int MAGIC = 0x464c457f;

    static final int EHDR_SIZE = 64;
    private static final int SHDR_SIZE = 64;
    private static final int SHN_UNDEF = 0;
    private static final int SHN_XINDEX = 0xffff;
    /** Sections up to this size are copied to the heap; larger ones are memory-mapped. */
    private static final long HEAP_READ_LIMIT = InspectLimits.HEAP_READ_BYTES;

    /** For messages: the file's path, or a description of the in-memory image. */
    private final String name;
    /** Where the bytes come from: exactly one of these is non-null. */
    private final FileChannel channel;
    private final ByteBuffer image;
    private final long fileSize;
    private final int osAbi;
    private final int abiVersion;
    private final int type;
    private final int machine;
    private final int flags;
    private final List<ElfSection> sections;

    private ElfFile(String name, FileChannel channel, ByteBuffer image) throws IOException {
        this.name = name;
        this.channel = channel;
        this.image = image;
        this.fileSize = channel != null ? channel.size() : image.remaining();

        ByteBuffer header = readIdentAndHeader();
        this.osAbi = Byte.toUnsignedInt(header.get(7));
        this.abiVersion = Byte.toUnsignedInt(header.get(8));
        this.type = Short.toUnsignedInt(header.getShort(16));
        this.machine = Short.toUnsignedInt(header.getShort(18));
        this.flags = header.getInt(48);
        long shoff = header.getLong(40);
        int shentsize = Short.toUnsignedInt(header.getShort(58));
        int shnum = Short.toUnsignedInt(header.getShort(60));
        int shstrndx = Short.toUnsignedInt(header.getShort(62));
        this.sections = readSections(shoff, shentsize, shnum, shstrndx);
    }

    /**
     * Opens an ELF file and reads its file header and section header table.
     *
     * @param path the file to open
     * @return the opened file; close it when done
     * @throws ElfFormatException if the file is not a 64-bit little-endian ELF file, or its headers are truncated
     *                            or corrupt
     * @throws IOException        if the file cannot be read
     */
    public static ElfFile open(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new ElfFile(path.toString(), channel, null);
        } catch (IOException | RuntimeException e) {
            try {
                channel.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Reads an ELF image held in memory, such as a cubin inside a fat binary. The image is the buffer's bytes from
     * its position to its limit; the buffer itself is not changed. Section contents are views of the buffer.
     *
     * @param image the ELF image
     * @return a view of the image; closing it is allowed but not needed
     * @throws ElfFormatException          if the image is not a 64-bit little-endian ELF image or its headers are
     *                                     truncated or corrupt
     * @throws TooLargeToInspectException if its headers claim more than the inspector's budget
     */
    public static ElfFile of(ByteBuffer image) throws IOException {
        return new ElfFile("in-memory ELF image", null, Bytes.view(image));
    }

    /** @return the file's length in bytes, as it was when opened */
    public long fileSize() {
        return fileSize;
    }

    /** @return {@code EI_OSABI}, e.g. 0 for System V, 0x41 for CUDA cubins */
    public int osAbi() {
        return osAbi;
    }

    /** @return {@code EI_ABIVERSION}, whose meaning depends on {@link #osAbi()} */
    public int abiVersion() {
        return abiVersion;
    }

    /** @return {@code e_type}, e.g. {@link #ET_REL}, {@link #ET_EXEC} or {@link #ET_DYN} */
    public int type() {
        return type;
    }

    /** @return {@code e_machine}, e.g. {@link #EM_X86_64} */
    public int machine() {
        return machine;
    }

    /** @return {@code e_flags}, whose meaning depends on the machine */
    public int flags() {
        return flags;
    }

    /**
     * @return the section header table in file order, including the null section at index 0; empty when the file
     *         has no section header table
     */
    public List<ElfSection> sections() {
        return sections;
    }

    /**
     * @param name a section name such as {@code .nv_fatbin}
     * @return the first section with that name, if any
     */
    public Optional<ElfSection> findSection(String name) {
        for (ElfSection section : sections) {
            if (section.name().equals(name)) {
                return Optional.of(section);
            }
        }
        return Optional.empty();
    }

    /**
     * Reads the data of the first section with the given name.
     *
     * @param name a section name such as {@code .nv_fatbin}
     * @return the section's data as described by {@link #contents(ElfSection)}, or empty when no section has that
     *         name
     * @throws ElfFormatException if the section's data lies outside the file
     * @throws IOException        if the file cannot be read
     */
    public Optional<ByteBuffer> section(String name) throws IOException {
        Optional<ElfSection> section = findSection(name);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(contents(section.get()));
    }

    /**
     * Reads a section's data. Small sections are copied to the heap; large ones are memory-mapped read-only, so that
     * a section of hundreds of megabytes costs no heap. The buffer stays valid after this file is closed. For an
     * in-memory image, the buffer is a view of the image.
     *
     * @param section a section of this file
     * @return a read-only little-endian buffer of exactly the section's bytes, positioned at 0; empty for a
     *         {@link ElfSection#SHT_NOBITS} section, which has no bytes in the file
     * @throws ElfFormatException if the section's data lies outside the file or is larger than 2 GiB
     * @throws IOException        if the file cannot be read
     */
    public ByteBuffer contents(ElfSection section) throws IOException {
        if (!section.hasFileData()) {
            return ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN).asReadOnlyBuffer();
        }
        checkRange("section " + describe(section), section.offset(), section.size());
        if (section.size() > Bytes.MAX_ARRAY) {
            throw new ElfFormatException("section " + describe(section) + " is " + section.size()
                    + " bytes; sections over 2 GiB are not supported");
        }
        int size = (int) section.size();
        ByteBuffer data;
        if (image != null) {
            data = readFully(section.offset(), size).asReadOnlyBuffer();
        } else if (size <= HEAP_READ_LIMIT) {
            data = readFully(section.offset(), size).asReadOnlyBuffer();
        } else {
            data = channel.map(FileChannel.MapMode.READ_ONLY, section.offset(), size);
        }
        return data.order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Closes the underlying file channel, if any. Buffers already returned stay readable. */
    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "ElfFile[" + name + ", type=" + type + ", machine=" + machine + ", sections=" + sections.size() + "]";
    }

    private ByteBuffer readIdentAndHeader() throws IOException {
        if (fileSize < 16) {
            throw new ElfFormatException("not an ELF file: " + name + " is only " + fileSize + " bytes long");
        }
        ByteBuffer ident = readFully(0, 16);
        if (ident.getInt(0) != MAGIC) {
            throw new ElfFormatException("not an ELF file: " + name + " does not start with the ELF magic number");
        }
        int elfClass = ident.get(4);
        if (elfClass == 1) {
            throw new ElfFormatException("32-bit ELF not supported: " + name);
        }
        if (elfClass != 2) {
            throw new ElfFormatException("invalid ELF class " + elfClass + " in " + name);
        }
        int data = ident.get(5);
        if (data == 2) {
            throw new ElfFormatException("big-endian ELF not supported: " + name);
        }
        if (data != 1) {
            throw new ElfFormatException("invalid ELF data encoding " + data + " in " + name);
        }
        if (fileSize < EHDR_SIZE) {
            throw new ElfFormatException("truncated ELF header: " + name + " is only " + fileSize + " bytes long");
        }
        return readFully(0, EHDR_SIZE);
    }

    private List<ElfSection> readSections(long shoff, int shentsize, int shnum, int shstrndx) throws IOException {
        if (shoff == 0) {
            return List.of(); // no section header table, e.g. after aggressive stripping
        }
        if (shentsize < SHDR_SIZE) {
            throw new ElfFormatException("invalid section header entry size " + shentsize + " in " + name
                    + " (at least " + SHDR_SIZE + " expected)");
        }
        checkRange("section header 0", shoff, SHDR_SIZE);
        ByteBuffer first = readFully(shoff, SHDR_SIZE);
        long count = shnum;
        if (shnum == 0) {
            count = first.getLong(32); // extended numbering: the real count is section 0's sh_size
        }
        if (shstrndx == SHN_XINDEX) {
            shstrndx = first.getInt(40); // extended numbering: the real index is section 0's sh_link
        }
        if (count == 0) {
            return List.of();
        }
        if (count < 0 || count > (fileSize - shoff) / shentsize) {
            throw new ElfFormatException("section header table of " + Long.toUnsignedString(count) + " entries of "
                    + shentsize + " bytes at offset " + shoff + " extends past the end of " + name + " ("
                    + fileSize + " bytes)");
        }
        InspectLimits.check(count, InspectLimits.MAX_SECTIONS, "sections", name);
        int n = (int) count;
        long tableSize = count * shentsize;
        if (tableSize > Bytes.MAX_ARRAY) {
            throw new ElfFormatException("section header table of " + n + " entries is too large: " + name);
        }
        // only the first 64 bytes of each entry are read: at most MAX_SECTIONS * 64 bytes of heap, whatever the
        // entry size claims (a sparse file can make a table of gigabytes cost nothing on disk)
        int stride = shentsize;
        ByteBuffer table;
        if (image != null || shentsize == SHDR_SIZE || tableSize <= HEAP_READ_LIMIT) {
            table = readFully(shoff, (int) tableSize);
        } else {
            table = ByteBuffer.allocate(n * SHDR_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) {
                table.put(i * SHDR_SIZE, readFully(shoff + (long) i * shentsize, SHDR_SIZE), 0, SHDR_SIZE);
            }
            stride = SHDR_SIZE;
        }

        ByteBuffer names = null;
        if (shstrndx != SHN_UNDEF) {
            if (Integer.compareUnsigned(shstrndx, n) >= 0) {
                throw new ElfFormatException("section name table index " + Integer.toUnsignedString(shstrndx)
                        + " is out of range (" + n + " sections) in " + name);
            }
            ElfSection strtab = rawSection(table, shstrndx, stride, "");
            names = contents(strtab);
        }

        List<ElfSection> result = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int nameOffset = table.getInt(i * stride);
            String name = names == null ? "" : name(names, nameOffset, i);
            result.add(rawSection(table, i, stride, name));
        }
        return Collections.unmodifiableList(result);
    }

    private ElfSection rawSection(ByteBuffer table, int index, int shentsize, String name) throws ElfFormatException {
        int base = index * shentsize;
        int type = table.getInt(base + 4);
        long offset = table.getLong(base + 24);
        long size = table.getLong(base + 32);
        if (offset < 0 || size < 0) {
            throw new ElfFormatException("section " + index + " of " + name + " has an impossible offset "
                    + Long.toUnsignedString(offset) + " or size " + Long.toUnsignedString(size));
        }
        return new ElfSection(index, name, type, offset, size);
    }

    private String name(ByteBuffer names, int nameOffset, int sectionIndex) throws IOException {
        int limit = names.limit();
        if (nameOffset < 0 || nameOffset >= limit) {
            if (nameOffset == 0 && limit == 0) {
                return "";
            }
            throw new ElfFormatException("name of section " + sectionIndex + " starts at "
                    + Integer.toUnsignedString(nameOffset) + ", outside the " + limit
                    + "-byte section name table of " + name);
        }
        int end = nameOffset;
        int longest = (int) Math.min(limit, (long) nameOffset + InspectLimits.MAX_SECTION_NAME_BYTES);
        while (end < longest && names.get(end) != 0) {
            end++;
        }
        if (end == longest && longest < limit) {
            throw new TooLargeToInspectException("name of section " + sectionIndex + " in " + name + " is longer"
                    + " than " + InspectLimits.MAX_SECTION_NAME_BYTES + " bytes");
        }
        if (end == limit) {
            throw new ElfFormatException("name of section " + sectionIndex + " is not NUL-terminated in " + name);
        }
        return Bytes.string(names, nameOffset, end - nameOffset, StandardCharsets.UTF_8);
    }

    private void checkRange(String what, long offset, long length) throws ElfFormatException {
        if (!Bytes.inBounds(offset, length, fileSize)) {
            throw new ElfFormatException(what + " (offset " + Long.toUnsignedString(offset) + ", "
                    + Long.toUnsignedString(length) + " bytes) extends past the end of " + name + " (" + fileSize
                    + " bytes)");
        }
    }

    /** Reads bytes whose range the caller has checked against {@link #fileSize}. */
    private ByteBuffer readFully(long offset, int length) throws IOException {
        if (image != null) {
            return image.slice((int) offset, length).order(ByteOrder.LITTLE_ENDIAN);
        }
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, offset + buffer.position());
            if (read < 0) {
                throw new ElfFormatException("unexpected end of file at offset " + (offset + buffer.position())
                        + " in " + name + " (did the file shrink while being read?)");
            }
        }
        return buffer.flip();
    }

    private static String describe(ElfSection section) {
        return section.name().isEmpty() ? "#" + section.index() : section.name();
    }
}
