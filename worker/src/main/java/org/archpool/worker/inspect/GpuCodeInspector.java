package org.archpool.worker.inspect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads the GPU code in any file a GPU build produces, telling the container by its first bytes:
 * <ul>
 *   <li>ELF objects, shared libraries and executables: the CUDA fat binary in {@code .nv_fatbin} (or, in objects
 *       compiled with {@code -rdc=true}, {@code __nv_relfatbin}) and the clang offload bundle in
 *       {@code .hip_fatbin};</li>
 *   <li>bare AMD code objects ({@code .hsaco}, {@code .co}: ELF files for {@code EM_AMDGPU});</li>
 *   <li>clang offload bundle files, plain or compressed (what {@code hipcc --genco} writes);</li>
 *   <li>CUDA fat binary files ({@code nvcc -fatbin});</li>
 *   <li>static libraries ({@code ar} archives): each ELF member as above.</li>
 * </ul>
 * Anything else holds no GPU code. Bare cubins ({@code nvcc -cubin}) are not read.
 *
 * <p>A file that cannot be opened, or whose container is corrupt, throws; a GPU code section inside a readable
 * container that is corrupt, or a code object too large to read into memory, is reported in
 * {@link GpuCode#problems()} and the rest is still read. A file whose headers claim more than the inspector reads
 * within its memory budget ({@link InspectLimits}: sections, members, entries, metadata values) throws
 * {@link TooLargeToInspectException}, wherever in the file that claim is. Stateless and thread-safe.
 */
public final class GpuCodeInspector {

    /** How a file's first bytes classify it. */
    public enum Container {
        /** An ELF file: host object, library or executable, or an AMD code object. */
        ELF,
        /** A clang offload bundle, plain or compressed. */
        OFFLOAD_BUNDLE,
        /** A CUDA fat binary file. */
        CUDA_FATBIN,
        /** A static library. */
        AR_ARCHIVE,
        /** Anything else. */
        NONE
    }

    /** The section of host ELF files that holds the CUDA fat binary the runtime loads. */
    public static final String CUDA_SECTION = ".nv_fatbin";
    /** The section of {@code -rdc=true} objects that holds their relocatable device code. */
    public static final String CUDA_RDC_SECTION = "__nv_relfatbin";
    /** The section of host ELF files that holds the clang offload bundle of HIP device code. */
    public static final String HIP_SECTION = ".hip_fatbin";

    private static final int BITCODE_MAGIC = 0xdec04342; // "BC\xC0\xDE" read little-endian
    private static final int PROBE_BYTES = 32;
    private static final long DEFAULT_MAX_CODE_BYTES = 256L << 20;

    private final long maxCodeBytes;
    private final AmdCodeObjectReader amd = new AmdCodeObjectReader();

    /** Reads code objects of up to a third of the heap, and at most 256 MiB, into memory. */
    public GpuCodeInspector() {
        this(Math.min(DEFAULT_MAX_CODE_BYTES, Runtime.getRuntime().maxMemory() / 3));
    }

    /**
     * @param maxCodeBytes the largest code object of a compressed bundle read into memory; larger ones are listed
     *                     from the bundle's table, with a problem saying their kernels were not read. A
     *                     compressed bundle that must be decoded whole (a single-segment zstd frame) larger than
     *                     this is not read: a problem says so
     */
    public GpuCodeInspector(long maxCodeBytes) {
        this.maxCodeBytes = maxCodeBytes;
    }

    /**
     * @param file a file
     * @return its container, from its first bytes; {@link Container#NONE} for short or unknown files
     * @throws IOException if the file cannot be read
     */
    public static Container container(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer head = ByteBuffer.allocate(PROBE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            while (head.hasRemaining() && channel.read(head) >= 0) {
                // read until full or end of file
            }
            head.flip();
            return container(head);
        }
    }

    private static Container container(ByteBuffer head) {
        if (Bytes.startsWithInt(head, ElfFile.MAGIC)) {
            return Container.ELF;
        }
        if (OffloadBundle.hasMagic(head)) {
            return Container.OFFLOAD_BUNDLE;
        }
        if (Bytes.startsWithInt(head, CudaFatbin.MAGIC)) {
            return Container.CUDA_FATBIN;
        }
        if (ArArchive.hasMagic(head)) {
            return Container.AR_ARCHIVE;
        }
        return Container.NONE;
    }

    /**
     * @param file a file
     * @return the GPU code in it; {@link GpuCode#NONE} for files that hold none
     * @throws MalformedBinaryException if the file's container (ELF, bundle, fat binary, archive) is corrupt
     * @throws IOException              if the file cannot be read
     */
    public GpuCode inspect(Path file) throws IOException {
        switch (container(file)) {
            case ELF:
                try (ElfFile elf = ElfFile.open(file)) {
                    return inspectElf(elf, "");
                }
            case OFFLOAD_BUNDLE:
                GpuCode code = GpuCode.NONE;
                for (OffloadBundle bundle : OffloadBundle.readAll(map(file), maxCodeBytes, maxCodeBytes)) {
                    code = code.plus(hipCode(bundle, "bundle"));
                }
                return code;
            case CUDA_FATBIN:
                return cuda(CudaFatbin.parse(map(file)), "fatbin");
            case AR_ARCHIVE:
                return inspectArchive(map(file), file.getFileName().toString());
            default:
                return GpuCode.NONE;
        }
    }

    private GpuCode inspectArchive(ByteBuffer data, String archiveName) throws IOException {
        GpuCode code = GpuCode.NONE;
        for (ArArchive.Member member : ArArchive.read(data)) {
            String where = archiveName + "(" + member.name() + ")";
            if (container(member.data().duplicate().order(ByteOrder.LITTLE_ENDIAN)) != Container.ELF) {
                continue;
            }
            try {
                code = code.plus(inspectElf(ElfFile.of(member.data()), where + " "));
            } catch (MalformedBinaryException e) {
                code = code.plus(problem(where + ": " + e.getMessage()));
            }
        }
        return code;
    }

    private GpuCode inspectElf(ElfFile elf, String prefix) throws IOException {
        if (AmdCodeObjectReader.isAmdGpu(elf)) {
            AmdCodeObject object = amd.read(elf);
            return new GpuCode(List.of(), List.of(new HipCode(prefix + "code object", null, object.targetId(),
                    false, elf.fileSize(), object)), List.of());
        }
        GpuCode code = GpuCode.NONE;
        Optional<ElfSection> cudaSection = elf.findSection(CUDA_SECTION).or(() -> elf.findSection(CUDA_RDC_SECTION));
        if (cudaSection.isPresent()) {
            String where = prefix + cudaSection.get().name();
            try {
                code = code.plus(cuda(CudaFatbin.parse(elf.contents(cudaSection.get())), where));
            } catch (MalformedBinaryException e) {
                code = code.plus(problem(where + ": " + e.getMessage()));
            }
        }
        Optional<ElfSection> hipSection = elf.findSection(HIP_SECTION);
        if (hipSection.isPresent()) {
            String where = prefix + HIP_SECTION;
            try {
                ByteBuffer section = elf.contents(hipSection.get());
                for (OffloadBundle bundle : OffloadBundle.readAll(section, maxCodeBytes, maxCodeBytes)) {
                    code = code.plus(hipCode(bundle, where));
                }
            } catch (MalformedBinaryException e) {
                code = code.plus(problem(where + ": " + e.getMessage()));
            }
        } else {
            // objects compiled with -fgpu-rdc: one section per bundle entry, holding LLVM bitcode
            String where = prefix + OffloadBundle.SECTION_PREFIX + "*";
            try {
                Optional<OffloadBundle> rdc = OffloadBundle.readObjectSections(elf, maxCodeBytes);
                if (rdc.isPresent()) {
                    code = code.plus(hipCode(rdc.get(), where));
                }
            } catch (MalformedBinaryException e) {
                code = code.plus(problem(where + ": " + e.getMessage()));
            }
        }
        return code;
    }

    private GpuCode hipCode(OffloadBundle bundle, String where) throws TooLargeToInspectException {
        boolean compressed = bundle.compression() != OffloadBundle.Compression.NONE;
        List<HipCode> hip = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (OffloadBundleEntry entry : bundle.entries()) {
            if (entry.isHost() || !entry.triple().startsWith("amdgcn-") || entry.targetId().isEmpty()) {
                continue;
            }
            AmdCodeObject object = null;
            String targetId = entry.targetId();
            ByteBuffer code = entry.code();
            if (code == null) {
                problems.add(where + ": the code object for " + targetId + " is " + mib(entry.size())
                        + " uncompressed, more than the " + mib(maxCodeBytes)
                        + " read into memory, so its kernels were not read");
            } else if (Bytes.startsWithInt(code, ElfFile.MAGIC)) {
                try {
                    object = amd.read(code);
                    if (!agrees(targetId, object.targetId())) {
                        problems.add(where + ": bundle entry " + entry.id() + " holds a code object for "
                                + object.targetId());
                    }
                    targetId = object.targetId();
                } catch (TooLargeToInspectException e) {
                    throw e;
                } catch (IOException e) {
                    problems.add(where + ": code object " + entry.id() + ": " + e.getMessage());
                }
            } else if (!Bytes.startsWithInt(code, BITCODE_MAGIC)) {
                problems.add(where + ": bundle entry " + entry.id() + " is neither an AMD code object nor LLVM"
                        + " bitcode");
            }
            hip.add(new HipCode(where, entry.id(), targetId, compressed, entry.size(), object));
        }
        return new GpuCode(List.of(), hip, problems);
    }

    /**
     * Whether a code object's target ID agrees with its bundle entry's: the same processor, and every feature the
     * entry names set the same way. (Code object v3 states sramecc even when the entry left it "any".)
     */
    static boolean agrees(String entryTarget, String objectTarget) {
        String[] entry = entryTarget.split(":");
        List<String> object = List.of(objectTarget.split(":"));
        if (!entry[0].equals(object.get(0))) {
            return false;
        }
        for (int i = 1; i < entry.length; i++) {
            String feature = entry[i];
            String name = feature.substring(0, Math.max(0, feature.length() - 1));
            boolean contradicted = object.stream().skip(1)
                    .anyMatch(f -> f.startsWith(name) && f.length() == feature.length() && !f.equals(feature));
            if (contradicted) {
                return false;
            }
        }
        return true;
    }

    private static GpuCode cuda(CudaFatbin fatbin, String where) {
        List<CudaCode> cuda = new ArrayList<>();
        for (FatbinEntry entry : fatbin.entries()) {
            cuda.add(new CudaCode(where, entry));
        }
        return new GpuCode(cuda, List.of(), List.of());
    }

    private static GpuCode problem(String text) {
        return new GpuCode(List.of(), List.of(), List.of(text));
    }

    private static ByteBuffer map(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size > Bytes.MAX_ARRAY) {
                throw new MalformedBinaryException(file + " is " + mib(size) + "; files over 2 GiB are not read");
            }
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, size).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
