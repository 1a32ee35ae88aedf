package org.archpool.worker.inspect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads an AMD GPU code object: the ELF image, with {@code e_machine} {@value #EM_AMDGPU}, that the ROCm runtime
 * loads onto a GPU. In a HIP object, library or executable such images sit inside the offload bundle of the
 * {@code .hip_fatbin} section, one per target; {@code clang-offload-bundler --unbundle} extracts them (this class
 * does not read bundles).
 *
 * <h2>What is read</h2>
 * <ul>
 *   <li><b>Code object version</b>, from {@code EI_ABIVERSION} with {@code EI_OSABI} =
 *       {@value #ELFOSABI_AMDGPU_HSA} ({@code ELFOSABI_AMDGPU_HSA}): 1 = V3, 2 = V4, 3 = V5, 4 = V6. V2 (0) is
 *       rejected: its metadata is YAML in notes of owner {@code "AMD"}, which this reader does not parse. Code
 *       objects for PAL or Mesa ({@code EI_OSABI} 65 and 66) are rejected too.</li>
 *   <li><b>Processor</b>, from the low 8 bits of {@code e_flags} via {@link AmdProcessors}. None (0), R600
 *       processors and values the table does not know are rejected, naming the value.</li>
 *   <li><b>Target features</b>, from {@code e_flags}: for V3 the bits {@code EF_AMDGPU_FEATURE_XNACK_V3} (0x100) and
 *       {@code EF_AMDGPU_FEATURE_SRAMECC_V3} (0x200), on or off; for V4 and later the two-bit fields
 *       {@code EF_AMDGPU_FEATURE_XNACK_V4} (0x300: 0 unsupported, 0x100 any, 0x200 off, 0x300 on) and
 *       {@code EF_AMDGPU_FEATURE_SRAMECC_V4} (0xc00: 0 unsupported, 0x400 any, 0x800 off, 0xc00 on). V6 keeps the
 *       generic target version in bits 24-31, which does not change the processor's name and is not reported.
 *       Other bits are ignored.</li>
 *   <li><b>Metadata</b>: notes in {@code SHT_NOTE} sections. A note is {@code namesz}, {@code descsz} and
 *       {@code type} (32-bit each), the owner name ({@code namesz} bytes with its NUL, padded to 4), and the
 *       descriptor ({@code descsz} bytes, padded to 4). The note of owner {@code "AMDGPU"} and type
 *       {@value #NT_AMDGPU_METADATA} ({@code NT_AMDGPU_METADATA}) holds one {@link MessagePack} map, of which
 *       {@code amdhsa.target} and {@code amdhsa.kernels} (each kernel's {@code .name}, and the {@code .value_kind}
 *       of each of its {@code .args}) are read. Other notes are skipped. A code object without that note reads
 *       as having no kernels and no metadata target; two such notes are rejected as ambiguous.</li>
 * </ul>
 * When the metadata has an {@code amdhsa.target}, it must be {@code amdgcn-amd-amdhsa--} followed by exactly the
 * target ID that {@code e_flags} give (same processor, same features); otherwise the code object contradicts
 * itself and is rejected.
 *
 * <p>Every size and offset is checked before use; malformed input gives an {@link AmdCodeObjectFormatException}
 * (or an {@link ElfFormatException} for a broken ELF structure) saying what is wrong, never an unchecked
 * exception. Stateless and thread-safe.
 */
public final class AmdCodeObjectReader {

    /** {@code e_machine} of AMD GPU code objects. */
    public static final int EM_AMDGPU = 224;
    /** {@code EI_OSABI} of code objects for the HSA runtime (ROCm). */
    public static final int ELFOSABI_AMDGPU_HSA = 64;
    /** {@code EI_OSABI} of code objects for AMD's PAL graphics driver stack. */
    public static final int ELFOSABI_AMDGPU_PAL = 65;
    /** {@code EI_OSABI} of code objects for Mesa. */
    public static final int ELFOSABI_AMDGPU_MESA3D = 66;
    /** {@code sh_type} of note sections. */
    public static final int SHT_NOTE = 7;
    /** Note type of the MessagePack metadata, owner {@value #METADATA_OWNER}. */
    public static final int NT_AMDGPU_METADATA = 32;
    /** Owner of the code object V3+ notes. */
    public static final String METADATA_OWNER = "AMDGPU";
    /** What {@code amdhsa.target} starts with: the target triple and its empty environment. */
    public static final String TARGET_TRIPLE_PREFIX = "amdgcn-amd-amdhsa--";
    /** The {@code .value_kind} of the hidden kernel argument that carries the hostcall buffer. */
    public static final String HOSTCALL_VALUE_KIND = "hidden_hostcall_buffer";

    private static final int ELFABIVERSION_AMDGPU_HSA_V2 = 0;
    private static final int ELFABIVERSION_AMDGPU_HSA_V6 = 4;
    private static final int XNACK_V3 = 0x100;
    private static final int SRAMECC_V3 = 0x200;
    private static final int XNACK_V4 = 0x300;
    private static final int XNACK_ANY_V4 = 0x100;
    private static final int XNACK_OFF_V4 = 0x200;
    private static final int XNACK_ON_V4 = 0x300;
    private static final int SRAMECC_V4 = 0xc00;
    private static final int SRAMECC_ANY_V4 = 0x400;
    private static final int SRAMECC_OFF_V4 = 0x800;
    private static final int SRAMECC_ON_V4 = 0xc00;
    private static final int NOTE_HEADER_SIZE = 12;
    private static final int NOTE_ALIGNMENT = 4;

    /** Creates a reader; it holds no state. */
    public AmdCodeObjectReader() {
    }

    /**
     * @param elf an ELF file
     * @return whether its {@code e_machine} is {@value #EM_AMDGPU}
     */
    public static boolean isAmdGpu(ElfFile elf) {
        return elf.machine() == EM_AMDGPU;
    }

    /**
     * Reads an AMD GPU code object held in memory, e.g. one extracted from an offload bundle.
     *
     * @param image the code object's bytes, from the buffer's position to its limit; the buffer is not changed
     * @return what the code object says
     * @throws ElfFormatException           if the image is not a readable 64-bit little-endian ELF image
     * @throws AmdCodeObjectFormatException if it is not a supported AMD GPU code object or is corrupt
     */
    public AmdCodeObject read(ByteBuffer image) throws IOException {
        return read(ElfFile.of(image));
    }

    /**
     * Reads an AMD GPU code object file ({@code .co}, {@code .hsaco}).
     *
     * @param file the file
     * @return what the code object says
     * @throws ElfFormatException           if the file is not a readable 64-bit little-endian ELF file
     * @throws AmdCodeObjectFormatException if it is not a supported AMD GPU code object or is corrupt
     * @throws IOException                  if the file cannot be read
     */
    public AmdCodeObject read(Path file) throws IOException {
        try (ElfFile elf = ElfFile.open(file)) {
            return read(elf);
        } catch (AmdCodeObjectFormatException e) {
            throw new AmdCodeObjectFormatException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads an AMD GPU code object.
     *
     * @param elf an ELF file whose {@code e_machine} is {@value #EM_AMDGPU}
     * @return what the code object says
     * @throws AmdCodeObjectFormatException if it is not a supported AMD GPU code object, or its notes or metadata
     *                                      are corrupt or contradict its header
     * @throws ElfFormatException           if a note section lies outside the file
     * @throws IOException                  if the file cannot be read
     */
    public AmdCodeObject read(ElfFile elf) throws IOException {
        if (!isAmdGpu(elf)) {
            throw new AmdCodeObjectFormatException("not an AMD GPU code object: e_machine is " + elf.machine()
                    + ", not EM_AMDGPU (" + EM_AMDGPU + ")");
        }
        int version = codeObjectVersion(elf);
        int flags = elf.flags();
        int mach = flags & AmdProcessors.EF_AMDGPU_MACH;
        String processor = processor(mach, flags);
        String targetId = targetId(processor, mach, flags, version);

        Map<String, Object> metadata = metadata(elf);
        if (metadata == null) {
            return new AmdCodeObject(processor, targetId, version, null, List.of());
        }
        String metadataTarget = optionalString(metadata, "amdhsa.target", "the metadata");
        if (metadataTarget != null) {
            checkTarget(metadataTarget, processor, targetId, flags);
        }
        return new AmdCodeObject(processor, targetId, version, metadataTarget, kernels(metadata));
    }

    private static int codeObjectVersion(ElfFile elf) throws AmdCodeObjectFormatException {
        int osAbi = elf.osAbi();
        if (osAbi != ELFOSABI_AMDGPU_HSA) {
            String which = switch (osAbi) {
                case ELFOSABI_AMDGPU_PAL -> " (ELFOSABI_AMDGPU_PAL, a graphics driver code object)";
                case ELFOSABI_AMDGPU_MESA3D -> " (ELFOSABI_AMDGPU_MESA3D, a Mesa code object)";
                default -> "";
            };
            throw new AmdCodeObjectFormatException("not an HSA code object: EI_OSABI is " + osAbi + which
                    + ", not ELFOSABI_AMDGPU_HSA (" + ELFOSABI_AMDGPU_HSA + ")");
        }
        int abiVersion = elf.abiVersion();
        if (abiVersion == ELFABIVERSION_AMDGPU_HSA_V2) {
            throw new AmdCodeObjectFormatException("code object v2 (EI_ABIVERSION 0) is not supported: its metadata"
                    + " is YAML in \"AMD\" notes; rebuild with code object v3 or later"
                    + " (-mcode-object-version=4 or higher)");
        }
        if (abiVersion > ELFABIVERSION_AMDGPU_HSA_V6) {
            throw new AmdCodeObjectFormatException("unsupported code object version: EI_ABIVERSION is " + abiVersion
                    + " (code object v" + (abiVersion + 2) + "?); versions 3 to 6 (EI_ABIVERSION 1 to 4) are"
                    + " supported");
        }
        return abiVersion + 2;
    }

    private static String processor(int mach, int flags) throws AmdCodeObjectFormatException {
        if (mach == AmdProcessors.MACH_NONE) {
            throw new AmdCodeObjectFormatException(String.format(
                    "code object names no processor: EF_AMDGPU_MACH is 0 (e_flags 0x%x)", flags));
        }
        Optional<String> name = AmdProcessors.name(mach);
        if (name.isEmpty()) {
            throw new AmdCodeObjectFormatException(String.format("unknown AMD GPU processor: EF_AMDGPU_MACH 0x%02x"
                    + " (e_flags 0x%x) is not in the processor table; a newer LLVM may know it", mach, flags));
        }
        if (AmdProcessors.isR600(mach)) {
            throw new AmdCodeObjectFormatException(String.format("not an amdgcn code object: EF_AMDGPU_MACH 0x%02x"
                    + " is the R600 processor %s", mach, name.get()));
        }
        return name.get();
    }

    /** The target ID that e_flags state, in LLVM's order: sramecc before xnack. */
    private static String targetId(String processor, int mach, int flags, int version) {
        StringBuilder id = new StringBuilder(processor);
        if (version == 3) {
            if ((flags & SRAMECC_V3) != 0) {
                id.append(":sramecc+");
            } else if (AmdProcessors.supportsSramecc(mach)) {
                id.append(":sramecc-");
            }
            if ((flags & XNACK_V3) != 0) {
                id.append(":xnack+");
            } else if (AmdProcessors.supportsXnack(mach)) {
                id.append(":xnack-");
            }
            return id.toString();
        }
        switch (flags & SRAMECC_V4) {
            case SRAMECC_ON_V4 -> id.append(":sramecc+");
            case SRAMECC_OFF_V4 -> id.append(":sramecc-");
            default -> { } // unsupported or any
        }
        switch (flags & XNACK_V4) {
            case XNACK_ON_V4 -> id.append(":xnack+");
            case XNACK_OFF_V4 -> id.append(":xnack-");
            default -> { } // unsupported or any
        }
        return id.toString();
    }

    private static void checkTarget(String metadataTarget, String processor, String targetId, int flags)
            throws AmdCodeObjectFormatException {
        if (!metadataTarget.startsWith(TARGET_TRIPLE_PREFIX)) {
            throw new AmdCodeObjectFormatException("metadata amdhsa.target \"" + metadataTarget
                    + "\" does not start with \"" + TARGET_TRIPLE_PREFIX + "\"");
        }
        String metadataId = metadataTarget.substring(TARGET_TRIPLE_PREFIX.length());
        int colon = metadataId.indexOf(':');
        String metadataProcessor = colon < 0 ? metadataId : metadataId.substring(0, colon);
        if (!metadataProcessor.equals(processor)) {
            throw new AmdCodeObjectFormatException(String.format("code object contradicts itself: e_flags (0x%x)"
                    + " name processor %s but the metadata's amdhsa.target is \"%s\"", flags, processor,
                    metadataTarget));
        }
        if (!metadataId.equals(targetId)) {
            throw new AmdCodeObjectFormatException(String.format("code object contradicts itself: e_flags (0x%x)"
                    + " give target ID %s but the metadata's amdhsa.target is \"%s\"", flags, targetId,
                    metadataTarget));
        }
    }

    /** @return the metadata map, or null when there is no metadata note */
    private static Map<String, Object> metadata(ElfFile elf) throws IOException {
        ByteBuffer found = null;
        String foundIn = null;
        for (ElfSection section : elf.sections()) {
            if (section.type() != SHT_NOTE) {
                continue;
            }
            ByteBuffer notes = elf.contents(section).order(ByteOrder.LITTLE_ENDIAN);
            String where = "note section " + (section.name().isEmpty() ? "#" + section.index() : section.name());
            for (ByteBuffer desc : metadataNotes(notes, where)) {
                if (found != null) {
                    throw new AmdCodeObjectFormatException("more than one " + METADATA_OWNER
                            + " metadata note (in " + foundIn + " and " + where + ")");
                }
                found = desc;
                foundIn = where;
            }
        }
        if (found == null) {
            return null;
        }
        Object root;
        try {
            root = MessagePack.decode(found);
        } catch (AmdCodeObjectFormatException e) {
            throw new AmdCodeObjectFormatException("corrupt metadata note in " + foundIn + ": " + e.getMessage(), e);
        }
        if (!(root instanceof Map)) {
            throw new AmdCodeObjectFormatException("metadata note in " + foundIn + " does not hold a map");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) root;
        return map;
    }

    /** @return the descriptors of the AMDGPU metadata notes among the notes of one section */
    private static List<ByteBuffer> metadataNotes(ByteBuffer notes, String where)
            throws AmdCodeObjectFormatException {
        List<ByteBuffer> found = new ArrayList<>();
        long limit = notes.limit();
        long pos = 0;
        while (pos < limit) {
            if (limit - pos < NOTE_HEADER_SIZE) {
                throw new AmdCodeObjectFormatException("truncated note header at offset " + pos + " of " + where
                        + " (" + (limit - pos) + " bytes left, " + NOTE_HEADER_SIZE + " needed)");
            }
            long nameSize = Integer.toUnsignedLong(notes.getInt((int) pos));
            long descSize = Integer.toUnsignedLong(notes.getInt((int) pos + 4));
            long type = Integer.toUnsignedLong(notes.getInt((int) pos + 8));
            long nameStart = pos + NOTE_HEADER_SIZE;
            if (!Bytes.inBounds(nameStart, nameSize, limit)) {
                throw new AmdCodeObjectFormatException("note at offset " + pos + " of " + where + " has a name of "
                        + nameSize + " bytes, past the end of the section (" + limit + " bytes)");
            }
            long descStart = align(nameStart + nameSize);
            if (!Bytes.inBounds(descStart, descSize, limit)) {
                throw new AmdCodeObjectFormatException("note at offset " + pos + " of " + where
                        + " has a descriptor of " + descSize + " bytes, past the end of the section (" + limit
                        + " bytes)");
            }
            // the last note's padding may be missing at the end of the section
            long next = Math.min(align(descStart + descSize), limit);
            if (type == NT_AMDGPU_METADATA && METADATA_OWNER.equals(owner(notes, (int) nameStart, (int) nameSize))) {
                found.add(notes.slice((int) descStart, (int) descSize).order(ByteOrder.LITTLE_ENDIAN));
            }
            pos = next;
        }
        return found;
    }

    /** The owner name without its terminating NUL, decoded as Latin-1 so that any byte sequence is a string. */
    private static String owner(ByteBuffer notes, int start, int size) {
        int length = size;
        if (length > 0 && notes.get(start + length - 1) == 0) {
            length--;
        }
        return Bytes.string(notes, start, length, StandardCharsets.ISO_8859_1);
    }

    private static long align(long offset) {
        return (offset + NOTE_ALIGNMENT - 1) & -NOTE_ALIGNMENT;
    }

    private static List<AmdKernel> kernels(Map<String, Object> metadata) throws AmdCodeObjectFormatException {
        List<?> entries = optionalList(metadata, "amdhsa.kernels", "the metadata");
        if (entries == null) {
            return List.of();
        }
        List<AmdKernel> kernels = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            String where = "amdhsa.kernels[" + i + "]";
            Map<String, Object> kernel = asMap(entries.get(i), where);
            String name = optionalString(kernel, ".name", where);
            if (name == null) {
                throw new AmdCodeObjectFormatException(where + " has no .name");
            }
            where = "kernel " + name;
            boolean hostcall = false;
            List<?> args = optionalList(kernel, ".args", where);
            if (args != null) {
                for (int a = 0; a < args.size(); a++) {
                    String argWhere = where + ", .args[" + a + "]";
                    String kind = optionalString(asMap(args.get(a), argWhere), ".value_kind", argWhere);
                    if (HOSTCALL_VALUE_KIND.equals(kind)) {
                        hostcall = true;
                    }
                }
            }
            kernels.add(new AmdKernel(name, hostcall));
        }
        return kernels;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object value, String where) throws AmdCodeObjectFormatException {
        if (!(value instanceof Map)) {
            throw new AmdCodeObjectFormatException("metadata " + where + " is not a map");
        }
        return (Map<String, Object>) value; // MessagePack maps always have string keys
    }

    private static String optionalString(Map<String, Object> map, String key, String where)
            throws AmdCodeObjectFormatException {
        Object value = map.get(key);
        if (value == null || value instanceof String) {
            return (String) value;
        }
        throw new AmdCodeObjectFormatException(key + " in " + where + " is not a string");
    }

    private static List<?> optionalList(Map<String, Object> map, String key, String where)
            throws AmdCodeObjectFormatException {
        Object value = map.get(key);
        if (value == null || value instanceof List) {
            return (List<?>) value;
        }
        throw new AmdCodeObjectFormatException(key + " in " + where + " is not an array");
    }
}
