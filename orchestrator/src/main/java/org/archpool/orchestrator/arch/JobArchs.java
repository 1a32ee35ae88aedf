package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.archpool.protocol.Platform;

/**
 * The architectures one job says it supports (a manifest job's {@code "archs"} list, one platform's entries), and
 * the rule that picks, from a run's target, the architectures the job is built for.
 *
 * <p><b>Entries.</b> They are a union; duplicates are accepted.
 * <ul>
 *   <li>CUDA: an exact architecture in CMake's spelling ({@code 80}, {@code 90a}, {@code 100f}; any spelling
 *       {@link CudaArch#parse} reads without a code suffix, such as {@code 9.0}), or a range of compute
 *       capabilities {@code >=N}, {@code >N}, {@code <=N}, {@code <N} with {@code N} a plain known capability
 *       ({@code >=80}). Refused: a range with a suffix ({@code >=90a}: a range names compute capabilities, a
 *       feature architecture is listed on its own), {@code -real}/{@code -virtual} and {@code sm_}/{@code compute_}
 *       (they say how to build, which is the run's business), {@code all}, {@code all-major}, {@code native}.</li>
 *   <li>HIP: an AMD target ID read by {@link HipArch#parse} ({@code gfx90a}, {@code gfx90a:xnack-},
 *       {@code gfx908:sramecc+:xnack-}, case-insensitive). Ranges are refused: AMD processors have no order.</li>
 *   <li>An empty list is refused: it would skip the job everywhere.</li>
 * </ul>
 *
 * <p><b>Matching</b> one target architecture (as the run spells it, e.g. {@code 90a-real}) against one entry:
 * <ul>
 *   <li>CUDA exact entry {@code X} with feature level {@code s}: the target has the same compute capability and a
 *       feature level at least {@code s}, where none &lt; {@code f} (family) &lt; {@code a} (arch-specific). Job
 *       {@code 90} matches {@code 90}, {@code 90a}, {@code 90-real}, {@code 90-virtual}, {@code 90a-real}; job
 *       {@code 90a} matches {@code 90a}, {@code 90a-real}, not {@code 90}; job {@code 100f} matches {@code 100f} and
 *       {@code 100a}, not {@code 100}; job {@code 100a} does not match {@code 100f}.</li>
 *   <li>CUDA range: the target's compute capability compared as a number ({@code 120 > 90}), whatever its suffix
 *       ({@code >=80} matches {@code 90a}).</li>
 *   <li>HIP: the same processor, and every feature the entry sets ({@code xnack±}, {@code sramecc±}) set the same
 *       way in the target; features the entry leaves unset may be anything. Job {@code gfx90a} matches
 *       {@code gfx90a:xnack-}; job {@code gfx90a:xnack+} does not match {@code gfx90a} (that target builds code for
 *       either setting, which the job does not support).</li>
 * </ul>
 * The result is every target architecture some entry matches, in the target's order and spelling.
 *
 * <p><b>{@code all} and {@code all-major}</b> are first expanded as CMake does
 * ({@code Modules/Internal/CMakeCUDAArchitecturesAll.cmake}; with nvcc 11.5+ CMake passes {@code -arch=all} /
 * {@code -arch=all-major} to nvcc, which builds the same set) from the capabilities the installed nvcc builds
 * ({@code --list-gpu-code}): {@code all} is every one, {@code all-major} the first of each major version ({@code X0},
 * or where the compiler no longer builds {@code X0}, its lowest: CUDA 13.0 gives 75 80 90 100 110 120). Each is
 * real code only ({@code -real}) except the highest, which is plain (real and PTX): CUDA 13.0's {@code all-major} is
 * {@code 75-real;80-real;90-real;100-real;110-real;120}.
 */
public final class JobArchs {

    /** {@code >=80}: an operator, then the bound as written. */
    private static final Pattern RANGE = Pattern.compile("(>=|<=|>|<)(.*)", Pattern.DOTALL);
    /** A CUDA capability as {@code nvcc --list-gpu-code} lists it, with or without {@code sm_}. */
    private static final Pattern LISTED = Pattern.compile("(?:sm_)?([1-9][0-9]{1,2})([af]?)");
    /** A detected capability newer than the known-target table, as {@link ArchList#fromDevice} spells it. */
    private static final Pattern BARE_SM = Pattern.compile("[1-9][0-9]{1,2}");

    /**
     * The target's architectures the job is built for, or why none.
     *
     * @param archs  the target's architectures the job supports, in the target's order and spelling; empty when the
     *               job is skipped for this target
     * @param reason null unless {@code archs} is empty; then one sentence naming both lists, e.g.
     *               {@code it supports 90a, the run builds 80;90}
     */
    public record Intersection(List<String> archs, String reason) {
        public Intersection {
            archs = List.copyOf(archs);
            if (archs.isEmpty() == (reason == null)) {
                throw new IllegalArgumentException("a reason is given exactly when no architecture is left: "
                        + archs + ", " + reason);
            }
        }

        /** Whether no architecture is left, so that the job is skipped for this target. */
        public boolean empty() {
            return archs.isEmpty();
        }
    }

    /** One parsed entry. */
    private sealed interface Rule permits Exact, Range, Amd {
        boolean matches(GpuArch target);
    }

    /** {@code 90a}: the same capability, at this feature level or above. */
    private record Exact(CudaSm arch) implements Rule {
        @Override
        public boolean matches(GpuArch target) {
            return target instanceof CudaSm t && t.sm() == arch.sm() && level(t.variant()) >= level(arch.variant());
        }
    }

    /** {@code >=80}: the capability compared as a number, any suffix. */
    private record Range(String operator, int bound) implements Rule {
        @Override
        public boolean matches(GpuArch target) {
            if (!(target instanceof CudaSm t)) {
                return false;
            }
            return switch (operator) {
                case ">=" -> t.sm() >= bound;
                case ">" -> t.sm() > bound;
                case "<=" -> t.sm() <= bound;
                case "<" -> t.sm() < bound;
                default -> throw new IllegalStateException(operator);
            };
        }
    }

    /** {@code gfx90a:xnack-}: the same processor, every feature the entry sets set alike. */
    private record Amd(HipArch arch) implements Rule {
        @Override
        public boolean matches(GpuArch target) {
            return target instanceof HipArch t && t.processor().equals(arch.processor())
                    && t.features().containsAll(arch.features());
        }
    }

    private final Platform platform;
    private final List<String> entries;
    private final List<Rule> rules;

    private JobArchs(Platform platform, List<String> entries, List<Rule> rules) {
        this.platform = platform;
        this.entries = List.copyOf(entries);
        this.rules = List.copyOf(rules);
    }

    /**
     * Reads the entries of a manifest job's {@code "archs"} list that belong to {@code platform}.
     *
     * @throws ArchSyntaxException when the list is empty or an entry is not one the class comment accepts; the
     *                             message is one paragraph naming the entry, what is wrong and the fix (the caller
     *                             prefixes the job)
     */
    public static JobArchs parse(Platform platform, List<String> entries) throws ArchSyntaxException {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(entries, "entries");
        if (entries.isEmpty()) {
            throw new ArchSyntaxException("an empty archs list would skip the job everywhere; leave archs out to build"
                    + " for every architecture of the run, or list the architectures the job supports, e.g. "
                    + (platform == Platform.HIP ? "[\"gfx942\"]" : "[\"90a\"] or [\">=80\"]") + ".");
        }
        List<Rule> rules = new ArrayList<>(entries.size());
        for (String entry : entries) {
            rules.add(platform == Platform.CUDA ? cudaRule(entry) : hipRule(entry));
        }
        return new JobArchs(platform, new ArrayList<>(entries), rules);
    }

    /** The platform the entries were read for. */
    public Platform platform() {
        return platform;
    }

    /** The entries as written, in order (for the report and the cache key). */
    public List<String> entries() {
        return entries;
    }

    /**
     * The target's architectures this job is built for, in the target's order and spelling (after expanding
     * {@code all}/{@code all-major}, see the class comment); empty, with a reason, when the job is skipped.
     *
     * @param targetArchs          the run's architectures for this platform, as resolved ({@code 80}, {@code 90a-real},
     *                             {@code gfx90a:xnack-}, or {@code all} / {@code all-major} alone)
     * @param supportedByCompiler  the capabilities the installed nvcc builds ({@code 75}, {@code 80}, ... or
     *                             {@code sm_75}, ..., any order); read only to expand {@code all}/{@code all-major}
     * @throws IllegalStateException    when the target is {@code all}/{@code all-major} and
     *                                  {@code supportedByCompiler} is empty
     * @throws IllegalArgumentException when the target is empty or holds something that is not an architecture of
     *                                  this platform (the run's target is resolved and checked before any job)
     */
    public Intersection intersect(List<String> targetArchs, List<String> supportedByCompiler) {
        Objects.requireNonNull(targetArchs, "targetArchs");
        Objects.requireNonNull(supportedByCompiler, "supportedByCompiler");
        if (targetArchs.isEmpty()) {
            throw new IllegalArgumentException("the run's target has no architecture");
        }
        Optional<CudaAll> all = platform == Platform.CUDA ? wholeSet(targetArchs) : Optional.empty();
        List<String> names;
        List<GpuArch> archs = new ArrayList<>();
        String described;
        if (all.isPresent()) {
            List<CudaSm> expanded = expand(all.get(), supportedByCompiler);
            archs.addAll(expanded);
            names = ArchList.cmakeNames(expanded);
            described = all.get().cmakeName() + " (" + String.join(";", names) + " with this nvcc)";
        } else {
            names = targetArchs;
            for (String name : names) {
                archs.add(targetArch(name));
            }
            described = String.join(";", names);
        }
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            GpuArch target = archs.get(i);
            if (rules.stream().anyMatch(r -> r.matches(target))) {
                kept.add(names.get(i));
            }
        }
        return kept.isEmpty()
                ? new Intersection(List.of(), "it supports " + String.join(" or ", entries) + ", the run builds "
                        + described)
                : new Intersection(kept, null);
    }

    /**
     * Whether a CUDA target is {@code all} or {@code all-major}, which {@link #intersect} expands from the
     * architectures the installed nvcc builds, so that the caller must know them.
     */
    public static boolean isWholeSet(List<String> targetArchs) {
        return wholeSet(targetArchs).isPresent();
    }

    private static Optional<CudaAll> wholeSet(List<String> targetArchs) {
        return targetArchs.size() == 1 && targetArchs.get(0) != null
                ? CudaGrammar.tryParse(targetArchs.get(0)).filter(CudaAll.class::isInstance).map(CudaAll.class::cast)
                : Optional.empty();
    }

    /**
     * What {@code all} or {@code all-major} stands for with a compiler that builds {@code supported}, as CMake
     * expands it: ascending, {@code -real} except the highest, which is plain.
     *
     * @throws IllegalStateException    when {@code supported} is empty
     * @throws IllegalArgumentException when an entry of {@code supported} is not a capability
     */
    static List<CudaSm> expand(CudaAll all, List<String> supported) {
        if (supported.isEmpty()) {
            throw new IllegalStateException("the target is " + all.cmakeName() + ", and expanding it needs the"
                    + " architectures the installed nvcc builds (nvcc --list-gpu-code), which were not given");
        }
        TreeSet<Integer> sms = new TreeSet<>();
        for (String s : supported) {
            Matcher m = LISTED.matcher(s.strip().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new IllegalArgumentException("not a compute capability as nvcc --list-gpu-code lists it (75,"
                        + " sm_75): " + quote(s));
            }
            if (m.group(2).isEmpty()) {
                sms.add(Integer.parseInt(m.group(1)));
            }
        }
        if (sms.isEmpty()) {
            throw new IllegalStateException("the target is " + all.cmakeName() + ", and nvcc lists no plain"
                    + " capability to expand it to: " + supported);
        }
        List<Integer> chosen;
        if (all == CudaAll.ALL) {
            chosen = List.copyOf(sms);
        } else {
            Map<Integer, Integer> firstOfMajor = new TreeMap<>();
            for (int sm : sms) {
                firstOfMajor.putIfAbsent(sm / 10, sm);
            }
            chosen = List.copyOf(firstOfMajor.values());
        }
        int highest = chosen.get(chosen.size() - 1);
        return chosen.stream().map(sm -> new CudaSm(sm, CudaSm.Variant.NONE,
                sm == highest ? CudaSm.Code.REAL_AND_VIRTUAL : CudaSm.Code.REAL)).toList();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JobArchs other && platform == other.platform && entries.equals(other.entries);
    }

    @Override
    public int hashCode() {
        return Objects.hash(platform, entries);
    }

    /** {@code cuda [>=80, 90a]}. */
    @Override
    public String toString() {
        return platform.wireName() + " " + entries;
    }

    // ---------------------------------------------------------------- parsing one entry

    private static int level(CudaSm.Variant variant) {
        return switch (variant) {
            case NONE -> 0;
            case FAMILY_SPECIFIC -> 1;
            case ARCH_SPECIFIC -> 2;
        };
    }

    private static Rule cudaRule(String entry) throws ArchSyntaxException {
        requireOneEntry(entry, "[\"80\", \"90\"]");
        refuseWholeSets(entry);
        Matcher range = RANGE.matcher(entry);
        if (range.matches()) {
            return cudaRange(entry, range.group(1), range.group(2));
        }
        if (startsLikeARange(entry)) {
            throw new ArchSyntaxException(quote(entry) + " is not a range archpool understands: a range is >=N, >N,"
                    + " <=N or <N with N a compute capability such as 80, and an exact architecture is written"
                    + " plainly, e.g. \"90\". Fix: \">=80\" (or \"80\").");
        }
        CudaArch arch = CudaArch.parse(entry);
        if (!(arch instanceof CudaSm sm)) {
            throw new IllegalStateException("refused above: " + entry);
        }
        if (sm.code() != CudaSm.Code.REAL_AND_VIRTUAL) {
            String plain = sm.sm() + sm.variant().suffix();
            throw new ArchSyntaxException(quote(entry) + (entry.toLowerCase(Locale.ROOT).endsWith(sm.code().suffix())
                    ? "" : " (that is " + sm.cmakeName() + ")") + " says how to build ("
                    + (sm.code() == CudaSm.Code.REAL ? "real code only" : "PTX only") + "), which is the run's"
                    + " business: a job's archs list names the architectures it supports, and the run's --arch"
                    + " decides whether each is built as real code, PTX or both. Fix: \"" + plain + "\".");
        }
        return new Exact(sm);
    }

    private static Rule cudaRange(String entry, String operator, String bound) throws ArchSyntaxException {
        if (bound.toLowerCase(Locale.ROOT).startsWith("gfx")) {
            throw hipRangeRefused(entry);
        }
        Optional<CudaArch> parsed = startsLikeARange(bound) ? Optional.empty() : CudaGrammar.tryParse(bound);
        if (parsed.isEmpty() || !(parsed.get() instanceof CudaSm sm)) {
            String known = CudaTargets.all().stream().map(e -> Integer.toString(e.sm()))
                    .collect(Collectors.joining(" "));
            throw new ArchSyntaxException(quote(entry) + " is not a range archpool understands: after " + operator
                    + " comes a known compute capability written as a plain number (" + known + "), and "
                    + quote(bound) + " is none. Fix: \"" + operator + nearestKnown(bound) + "\".");
        }
        if (sm.variant() != CudaSm.Variant.NONE) {
            throw new ArchSyntaxException(quote(entry) + ": a range names compute capabilities; list a feature"
                    + " architecture such as 90a on its own. Fix: \"" + operator + sm.sm() + "\" for the"
                    + " capabilities, or \"" + sm.sm() + sm.variant().suffix() + "\" for the "
                    + (sm.variant() == CudaSm.Variant.ARCH_SPECIFIC ? "arch" : "family") + "-specific target alone"
                    + " (both, if the job needs both).");
        }
        if (sm.code() != CudaSm.Code.REAL_AND_VIRTUAL) {
            throw new ArchSyntaxException(quote(entry) + ": a range names compute capabilities, and -real/-virtual"
                    + " (or sm_/compute_) say how to build, which is the run's business, not the job's. Fix: \""
                    + operator + sm.sm() + "\".");
        }
        return new Range(operator, sm.sm());
    }

    /** The known capability nearest to {@code bound} when it is a number, else 80. */
    private static int nearestKnown(String bound) {
        if (!BARE_SM.matcher(bound).matches()) {
            return 80;
        }
        int n = Integer.parseInt(bound);
        return CudaTargets.all().stream().map(CudaTargets.Entry::sm)
                .min(Comparator.comparingInt((Integer sm) -> Math.abs(sm - n)).thenComparing(sm -> sm)).orElse(80);
    }

    private static Rule hipRule(String entry) throws ArchSyntaxException {
        requireOneEntry(entry, "[\"gfx90a\", \"gfx942\"]");
        refuseWholeSets(entry);
        if (startsLikeARange(entry)) {
            throw hipRangeRefused(entry);
        }
        return new Amd(HipArch.parse(entry));
    }

    private static ArchSyntaxException hipRangeRefused(String entry) {
        return new ArchSyntaxException(quote(entry) + ": ranges (>=, >, <=, <) name CUDA compute capabilities;"
                + " AMD processors have no order a range could follow (a newer gfx number is not a superset of an"
                + " older one). Fix: list each processor the job supports, e.g. [\"gfx90a\", \"gfx942\"].");
    }

    /** Refuses null, and a list, a space or a control character inside what must be one entry. */
    private static void requireOneEntry(String entry, String example) throws ArchSyntaxException {
        if (entry == null) {
            throw new ArchSyntaxException("an archs entry is null; write each architecture as a string, e.g. "
                    + example + ".");
        }
        String inner = entry.strip();
        for (int i = 0; i < entry.length(); i++) {
            char c = entry.charAt(i);
            if (ArchText.isSeparator(c)) {
                String why = !inner.equals(entry) && inner.chars().noneMatch(ch -> ArchText.isSeparator((char) ch))
                        ? "has spaces around it. Fix: " + quote(inner) + "."
                        : startsLikeARange(inner)
                        ? "has a space or separator in it; a range is written without one. Fix: "
                                + quote(inner.replaceAll("[\\s,;]+", "")) + "."
                        : "holds more than one entry or a space; give one architecture per entry. Fix: "
                                + example + ".";
                throw new ArchSyntaxException(quote(entry) + " " + why);
            }
        }
    }

    private static void refuseWholeSets(String entry) throws ArchSyntaxException {
        String t = entry.toLowerCase(Locale.ROOT);
        if (t.equals("all") || t.equals("all-major") || t.equals("native")) {
            throw new ArchSyntaxException(quote(entry) + " is not an architecture a job can support: a job's archs"
                    + " list names the architectures it can be built for, and leaving archs out already means every"
                    + " architecture of the run" + (t.equals("native") ? " (native is resolved for the whole run)"
                    : " (" + t + " is for the run's --arch)") + ". Fix: remove archs, or list the architectures, e.g. "
                    + "[\"80\", \"90\"] or [\">=80\"].");
        }
    }

    private static boolean startsLikeARange(String text) {
        return !text.isEmpty() && "<>=!~^".indexOf(text.charAt(0)) >= 0;
    }

    /** One of the run's architectures as a value; a detected one newer than the known-target table included. */
    private GpuArch targetArch(String name) {
        Objects.requireNonNull(name, "target arch");
        GpuArch arch;
        try {
            arch = GpuArch.parse(platform, name);
        } catch (ArchSyntaxException e) {
            if (platform == Platform.CUDA && BARE_SM.matcher(name).matches()) {
                return new CudaSm(Integer.parseInt(name));
            }
            if (platform == Platform.HIP && HipArch.PROCESSOR.matcher(name).matches()) {
                return new HipArch(name);
            }
            throw new IllegalArgumentException("the run's " + platform.wireName() + " target holds " + quote(name)
                    + ", which is not one of its architectures: " + e.getMessage(), e);
        }
        if (arch instanceof CudaAll) {
            throw new IllegalArgumentException("the run's cuda target holds " + name + " beside other"
                    + " architectures, but " + name + " stands alone (CMake refuses " + name + ";90)");
        }
        return arch;
    }
}
