package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;

/**
 * A user's architecture list ({@code --arch}, {@code HIPARCHS}, {@code CUDAARCHS}) as {@link GpuArch} values.
 *
 * <p>The text is untrusted and is checked by {@link ArchText} before anything else (length, plain ASCII, the
 * shape of each entry). Lists split on {@code ,}, {@code ;} and ASCII whitespace; empty entries are dropped, and
 * duplicates are dropped keeping the first, judged on the canonical form ({@code sm_90,90-real} is one entry).
 * Features the user wrote are kept ({@code gfx90a:xnack-}). Each entry must be a known target of the platform
 * ({@link HipArch#parse}, {@link CudaArch#parse}); an unknown one is an error that says "did you mean".
 * Combinations that the build tools would refuse are refused here: {@code all}/{@code all-major} alongside anything
 * else (CMake), and one processor with a feature named in some entries but not others, such as
 * {@code gfx942,gfx942:xnack-} (clang's "invalid offload arch combinations": for a processor, a feature must be in
 * all of its target IDs or in none; clang {@code DiagnosticDriverKinds.td} {@code err_drv_bad_offload_arch_combo}).
 *
 * <p>{@code native} is never an architecture: the resolver turns it into the coordinator's own detection
 * ({@link #isNative}) before it would call {@link #parse}, which refuses it.
 */
public final class ArchList {

    /** A capability written with a decimal comma: {@code 9,0}, {@code 12,1}. */
    private static final Pattern DECIMAL_COMMA =
            Pattern.compile("(?<![0-9A-Za-z._:+-])([1-9]|1[0-9]),([0-9])(?![0-9A-Za-z._:+-])");
    /** The CUDA spellings {@link #guessPlatform} recognises, including near misses that parse then explains. */
    private static final Pattern CUDA_LIKE = Pattern.compile(
            "(?:sm|compute)[_-]?[0-9][0-9a-z.+-]*|[0-9][0-9.]*[af]?(?:-real|-virtual)?(?:\\+ptx)?|all|all-major");

    private ArchList() {
    }

    /**
     * Parses a list of {@code platform}'s architectures.
     *
     * @return the architectures in the order written, without duplicates; never empty
     * @throws ArchSyntaxException when the text is hostile or malformed, names no architecture, names
     *                             {@code native}, names an unknown architecture, or combines entries that cannot be
     *                             built together; the message quotes the value safely and says how to fix it
     */
    public static List<GpuArch> parse(Platform platform, String text) throws ArchSyntaxException {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(text, "text");
        List<String> tokens = ArchText.tokens(text);
        if (tokens.isEmpty()) {
            throw new ArchSyntaxException("the architecture list " + quote(text) + " is empty; name at least"
                    + " one, e.g. --arch " + (platform == Platform.HIP ? "gfx942" : "90"));
        }
        for (String token : tokens) {
            if (token.equalsIgnoreCase("native")) {
                throw tokens.size() == 1 ? nativeRefused() : new ArchSyntaxException(nativeRefused().getMessage()
                        + " It cannot be combined with other architectures (" + quote(text) + ").");
            }
        }
        if (platform == Platform.CUDA) {
            rejectDecimalComma(text);
        }
        Set<GpuArch> archs = new LinkedHashSet<>();
        for (String token : tokens) {
            archs.add(GpuArch.parse(platform, token));
        }
        List<GpuArch> list = List.copyOf(archs);
        requireBuildableTogether(list);
        return list;
    }

    /** {@link #parse}, then {@link #cmakeNames}: the canonical CMake spellings. */
    public static List<String> parseToCmake(Platform platform, String text) throws ArchSyntaxException {
        return cmakeNames(parse(platform, text));
    }

    /** The canonical CMake spelling of each architecture, in order. */
    public static List<String> cmakeNames(List<? extends GpuArch> archs) {
        return archs.stream().map(GpuArch::cmakeName).toList();
    }

    /**
     * Whether {@code text} asks for the coordinator's detection: exactly the one entry {@code native}, in any case,
     * with only ASCII separators ({@code , ; } space, tab, CR, LF) around it. {@code null}, look-alikes
     * (<code>NAT&#92;u0130VE</code> with a Turkish dotted capital I, which {@link String#equalsIgnoreCase} would
     * accept) and lists that hold more than {@code native} give false.
     */
    public static boolean isNative(String text) {
        if (text == null || text.length() > ArchText.MAX_LIST_CHARS) {
            return false;
        }
        int start = 0;
        int end = text.length();
        while (start < end && ArchText.isSeparator(text.charAt(start))) {
            start++;
        }
        while (end > start && ArchText.isSeparator(text.charAt(end - 1))) {
            end--;
        }
        String token = text.substring(start, end);
        return token.length() == 6 && isAscii(token) && token.toLowerCase(Locale.ROOT).equals("native");
    }

    /**
     * The platform an explicit list belongs to, judged by its first entry: {@code gfx...} is HIP; CUDA spellings
     * ({@code 90}, {@code sm_90}, {@code compute_90}, {@code 9.0}, {@code all}, {@code all-major}) are CUDA; a
     * product or family name of the known-target tables ({@code h100}, {@code mi300x}, {@code hopper}) is its
     * vendor's platform, so that parsing then says "did you mean". Anything else, including {@code null} and
     * non-ASCII text, gives {@code null}.
     */
    public static Platform guessPlatform(String text) {
        if (text == null || text.length() > ArchText.MAX_LIST_CHARS) {
            return null;
        }
        String first = null;
        int start = -1;
        for (int i = 0; i <= text.length() && first == null; i++) {
            if (i == text.length() || ArchText.isSeparator(text.charAt(i))) {
                if (start >= 0) {
                    first = text.substring(start, i);
                }
            } else if (start < 0) {
                start = i;
            }
        }
        if (first == null || !isAscii(first)) {
            return null;
        }
        String t = first.toLowerCase(Locale.ROOT);
        if (t.startsWith("gfx")) {
            return Platform.HIP;
        }
        if (CUDA_LIKE.matcher(t).matches() || !CudaTargets.byAlias(t).isEmpty()) {
            return Platform.CUDA;
        }
        if (!AmdTargets.byAlias(t).isEmpty()) {
            return Platform.HIP;
        }
        return null;
    }

    /**
     * The architecture to build for a detected device: its processor or compute capability, with target features
     * stripped (a featureless code object runs in either xnack/sramecc mode) and, for CUDA, CMake's plain form
     * (real code and PTX). The hardware is the authority here: a device newer than the known-target table still
     * gives its architecture ({@link GpuArch#isKnown()} then says false).
     *
     * @throws IllegalArgumentException when the device's arch is not a single processor or capability (a generic
     *                                  target, or a malformed value)
     */
    public static GpuArch fromDevice(GpuDevice device) {
        Objects.requireNonNull(device, "device");
        String arch = device.arch();
        return switch (device.platform()) {
            case HIP -> {
                if (!HipArch.PROCESSOR.matcher(arch).matches() || arch.endsWith("-generic")) {
                    throw new IllegalArgumentException("a device reports its own processor (gfx942), never a generic"
                            + " target or anything else: " + quote(arch));
                }
                yield new HipArch(arch);
            }
            case CUDA -> {
                if (!arch.matches("[1-9][0-9]{1,2}")) {
                    throw new IllegalArgumentException("a device's compute capability without its dot (90, 121): "
                            + quote(arch));
                }
                yield new CudaSm(Integer.parseInt(arch));
            }
        };
    }

    /** The refusal of {@code native} inside a list or where detection cannot stand in for it. */
    static ArchSyntaxException nativeRefused() {
        return new ArchSyntaxException("\"native\" is not an architecture that archpool passes to builds: there it"
                + " would make CMake, nvcc or clang probe a GPU from inside every build (and silently pick a default"
                + " where none is visible). archpool resolves native itself, once, through the coordinator's own"
                + " detection: give --arch native alone, or leave --arch out. Otherwise name the architectures,"
                + " e.g. --arch gfx942 or --arch 90.");
    }

    private static void rejectDecimalComma(String text) throws ArchSyntaxException {
        Matcher m = DECIMAL_COMMA.matcher(text);
        while (m.find()) {
            int sm = Integer.parseInt(m.group(1)) * 10 + Integer.parseInt(m.group(2));
            if (CudaTargets.lookup(sm).isPresent()) {
                String dotted = m.group(1) + "." + m.group(2);
                throw new ArchSyntaxException(quote(m.group()) + " looks like compute capability " + dotted
                        + " written with a decimal comma, but ',' separates list entries (so it reads as "
                        + quote(m.group(1)) + " and " + quote(m.group(2)) + "). Did you mean "
                        + dotted + " or " + sm + "? Fix: --arch " + sm + ".");
            }
        }
    }

    private static void requireBuildableTogether(List<GpuArch> archs) throws ArchSyntaxException {
        if (archs.size() > 1) {
            for (GpuArch arch : archs) {
                if (arch instanceof CudaAll all) {
                    throw new ArchSyntaxException(quote(all.cmakeName()) + " stands for a whole set of architectures"
                            + " and cannot be combined with others (CMake refuses " + all.cmakeName() + ";90): give "
                            + "either " + all.cmakeName() + " alone or a list such as 80,90. The list was "
                            + quote(String.join(",", cmakeNames(archs))) + ".");
                }
            }
        }
        Map<String, HipArch> firstByProcessor = new LinkedHashMap<>();
        for (GpuArch arch : archs) {
            if (arch instanceof HipArch hip) {
                HipArch first = firstByProcessor.putIfAbsent(hip.processor(), hip);
                if (first != null && !featureNames(first).equals(featureNames(hip))) {
                    throw new ArchSyntaxException(quote(first.cmakeName()) + " and " + quote(hip.cmakeName()) + " cannot"
                            + " be built together: for one processor, a target feature must be named in all of its"
                            + " entries or in none (clang: invalid offload arch combinations). Give one entry per"
                            + " processor, or name the same features in each, e.g. "
                            + example(hip.features().isEmpty() ? first : hip) + ".");
                }
            }
        }
    }

    private static List<String> featureNames(HipArch arch) {
        List<String> names = new ArrayList<>();
        for (String f : arch.features()) {
            names.add(f.substring(0, f.length() - 1));
        }
        return names;
    }

    private static String example(HipArch arch) {
        List<String> names = featureNames(arch);
        if (names.isEmpty()) {
            return arch.processor();
        }
        String plus = arch.processor() + ":" + String.join("+:", names) + "+";
        String minus = arch.processor() + ":" + String.join("-:", names) + "-";
        return "--arch " + plus + "," + minus + " or --arch " + arch.processor();
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }
}
