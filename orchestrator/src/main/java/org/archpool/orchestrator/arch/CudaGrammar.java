package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The grammar of one CUDA architecture as a person writes it (see {@link CudaArch#parse}), with the messages
 * that explain what is wrong with anything else. Digits are ASCII {@code [0-9]} only, never {@code \d} with
 * Unicode classes: {@link Integer#parseInt} would read the fullwidth digits U+FF19 U+FF10 as 90.
 */
final class CudaGrammar {

    /** {@code 90}, {@code 90a}, {@code 100f}, {@code 90-real}, {@code 90a-virtual}. */
    private static final Pattern PLAIN = Pattern.compile("([1-9][0-9]{1,2})([af]?)(-real|-virtual)?");
    /** {@code sm_90} (real only), {@code compute_90} (virtual only), with {@code a}/{@code f}. */
    private static final Pattern PREFIXED = Pattern.compile("(sm|compute)_([1-9][0-9]{1,2})([af]?)");
    /** {@code 9.0}, {@code 9.0a}, {@code 10.0f}: the capability as nvidia-smi prints it. */
    private static final Pattern DOTTED = Pattern.compile("([1-9][0-9]?)\\.([0-9])([af]?)");
    private static final Pattern CODE_SUFFIX = Pattern.compile("(.*?)(-real|-virtual)");

    private CudaGrammar() {
    }

    static CudaArch parse(String token) throws ArchSyntaxException {
        ArchText.requireToken(token);
        String t = token.toLowerCase(Locale.ROOT);
        switch (t) {
            case "native" -> throw ArchList.nativeRefused();
            case "all" -> {
                return CudaAll.ALL;
            }
            case "all-major" -> {
                return CudaAll.ALL_MAJOR;
            }
            default -> {
            }
        }
        int sm;
        String variant;
        CudaSm.Code code;
        Matcher m;
        if ((m = PLAIN.matcher(t)).matches()) {
            sm = Integer.parseInt(m.group(1));
            variant = m.group(2);
            code = m.group(3) == null ? CudaSm.Code.REAL_AND_VIRTUAL
                    : m.group(3).equals("-real") ? CudaSm.Code.REAL : CudaSm.Code.VIRTUAL;
        } else if ((m = PREFIXED.matcher(t)).matches()) {
            sm = Integer.parseInt(m.group(2));
            variant = m.group(3);
            code = m.group(1).equals("sm") ? CudaSm.Code.REAL : CudaSm.Code.VIRTUAL;
        } else if ((m = DOTTED.matcher(t)).matches()) {
            sm = Integer.parseInt(m.group(1)) * 10 + Integer.parseInt(m.group(2));
            variant = m.group(3);
            code = CudaSm.Code.REAL_AND_VIRTUAL;
        } else {
            throw unknown(token, t, -1);
        }
        Optional<CudaTargets.Entry> known = CudaTargets.lookup(sm);
        if (known.isEmpty()) {
            throw unknown(token, t, sm);
        }
        CudaTargets.Entry entry = known.get();
        if (variant.equals("a") && !entry.archSpecific()) {
            throw new ArchSyntaxException(quote(token) + " asks for the arch-specific target " + sm + "a, but"
                    + " compute capability " + entry.dotted() + " has none: 'a' targets exist for "
                    + variants(CudaTargets.Entry::archSpecific, "a") + renamed(entry, "a") + ". Fix: --arch "
                    + sm + code.suffix() + ".");
        }
        if (variant.equals("f") && !entry.familySpecific()) {
            throw new ArchSyntaxException(quote(token) + " asks for the family-specific target " + sm
                    + "f, but compute capability " + entry.dotted() + " has none: 'f' targets exist from 10.0 on, for "
                    + variants(CudaTargets.Entry::familySpecific, "f") + renamed(entry, "f") + ". Fix: --arch " + sm
                    + code.suffix() + (entry.archSpecific() ? " (or " + sm + "a" + code.suffix() + ")" : "") + ".");
        }
        CudaSm.Variant v = switch (variant) {
            case "a" -> CudaSm.Variant.ARCH_SPECIFIC;
            case "f" -> CudaSm.Variant.FAMILY_SPECIFIC;
            default -> CudaSm.Variant.NONE;
        };
        return new CudaSm(sm, v, code);
    }

    /** The parsed value, or empty; never throws for text that is not a CUDA architecture. */
    static Optional<CudaArch> tryParse(String token) {
        try {
            return Optional.of(parse(token));
        } catch (ArchSyntaxException e) {
            return Optional.empty();
        }
    }

    private static String variants(Function<CudaTargets.Entry, Boolean> has, String suffix) {
        return ArchSuggestions.orList(CudaTargets.all().stream().filter(has::apply).map(e -> e.sm() + suffix).toList());
    }

    private static String renamed(CudaTargets.Entry entry, String suffix) {
        Matcher m = Pattern.compile("renamed to sm_([0-9]+)").matcher(entry.dropped());
        return m.find() ? " (" + entry.sm() + " was " + entry.dropped() + ": " + m.group(1) + suffix + ")" : "";
    }

    /**
     * The error for text that is no known CUDA architecture: why, when that can be told (an AMD name, a product
     * or family name, PyTorch's spelling, a removed capability, a comma for a dot), and the nearest known
     * spellings in the style it was written in.
     */
    private static ArchSyntaxException unknown(String token, String t, int sm) {
        String hint = null;
        String fix = null;
        List<String> suggestions = List.of();
        List<CudaTargets.Entry> aliased = CudaTargets.byAlias(t);
        List<AmdTargets.Entry> amd = AmdTargets.byAlias(t);
        if (t.startsWith("gfx")) {
            hint = "it is an AMD (HIP) architecture, not a CUDA architecture";
            fix = "--platform hip --arch " + t;
        } else if (!aliased.isEmpty()) {
            hint = "it is a product or family name; its compute capabilit"
                    + (aliased.size() == 1 ? "y is " : "ies are ")
                    + aliased.stream().map(CudaTargets.Entry::describe).collect(Collectors.joining(", "));
            suggestions = aliased.stream().map(e -> Integer.toString(e.sm())).limit(ArchSuggestions.MAX).toList();
        } else if (!amd.isEmpty()) {
            hint = "it is an AMD GPU ("
                    + amd.stream().map(AmdTargets.Entry::describe).collect(Collectors.joining(", "))
                    + "), built with --platform hip";
            fix = "--platform hip --arch " + amd.get(0).name();
        } else if (t.endsWith("+ptx") || t.endsWith("-ptx")) {
            Optional<CudaArch> base = tryParse(t.substring(0, t.length() - 4));
            hint = "'+PTX' is PyTorch's TORCH_CUDA_ARCH_LIST spelling; CMake's plain form (90) already includes PTX,"
                    + " and 90-virtual is PTX only";
            suggestions = base.filter(CudaSm.class::isInstance).map(a -> List.of(((CudaSm) a).sm() + ((CudaSm) a)
                    .variant().suffix())).orElse(List.of());
        } else if (t.matches("[0-9]")) {
            hint = "a compute capability has a major and a minor digit, " + t + ".0 is written " + t + "0 or " + t
                    + ".0 (',' separates list entries, so " + t + ",0 is read as " + t + " and 0)";
            suggestions = CudaTargets.lookup(Integer.parseInt(t) * 10).map(e -> List.of(Integer.toString(e.sm())))
                    .orElse(List.of());
        } else if (sm >= 0) {
            String dotted = sm / 10 + "." + sm % 10;
            hint = CudaTargets.removedIn(sm)
                    .map(v -> "compute capability " + dotted + " was removed in CUDA " + v + " and is older than every"
                            + " known target (5.0 is the oldest)")
                    .orElse("there is no compute capability " + dotted + " in archpool's table of known targets");
        }
        if (hint == null || (sm >= 0 && !t.startsWith("gfx"))) {
            suggestions = ArchSuggestions.merge(repairs(t), nearest(t));
        }
        if (fix == null) {
            fix = "--arch " + (suggestions.isEmpty() ? "90" : suggestions.get(0));
        }
        return new ArchSyntaxException(quote(token) + " is not a known CUDA architecture"
                + (hint == null ? "" : ": " + hint) + "." + ArchSuggestions.didYouMean(suggestions) + " " + accepted()
                + " Fix: " + fix + ".");
    }

    /** Spellings that common slips stand for, where they parse: {@code sm90}, {@code sm_9.0}, {@code 9.0-real}. */
    private static List<String> repairs(String t) {
        List<String> tries = new ArrayList<>();
        Matcher m;
        if ((m = Pattern.compile("(sm|compute)[-.]?([0-9].*)").matcher(t)).matches()) {
            tries.add(m.group(1) + "_" + m.group(2));
        }
        if ((m = Pattern.compile("(sm|compute)_?([0-9]{1,2})\\.([0-9])([af]?)").matcher(t)).matches()) {
            tries.add(m.group(1) + "_" + m.group(2) + m.group(3) + m.group(4));
        }
        if ((m = Pattern.compile("(?:sm|compute)_?(.*?)(-real|-virtual)").matcher(t)).matches()) {
            tries.add(t.substring(0, t.length() - m.group(2).length()));
            tries.add(m.group(1) + m.group(2));
        }
        if ((m = Pattern.compile("([1-9][0-9]?)\\.([0-9])([af]?)(-real|-virtual)").matcher(t)).matches()) {
            tries.add(m.group(1) + m.group(2) + m.group(3) + m.group(4));
        }
        List<String> out = new ArrayList<>();
        for (String candidate : tries) {
            if (tryParse(candidate).isPresent() && !out.contains(candidate)) {
                out.add(candidate);
            }
        }
        return out;
    }

    /** The nearest known spellings, in the style written: {@code sm_}, {@code compute_}, dotted, or CMake's. */
    private static List<String> nearest(String t) {
        List<String> names = new ArrayList<>();
        for (CudaTargets.Entry e : CudaTargets.all()) {
            names.add(Integer.toString(e.sm()));
            if (e.archSpecific()) {
                names.add(e.sm() + "a");
            }
            if (e.familySpecific()) {
                names.add(e.sm() + "f");
            }
        }
        Function<String, String> style;
        String written = t;
        String codeSuffix = "";
        if (t.startsWith("sm")) {
            style = n -> "sm_" + n;
        } else if (t.startsWith("comp")) {
            style = n -> "compute_" + n;
        } else if (t.contains(".")) {
            style = n -> {
                int digits = n.replaceAll("[af]$", "").length();
                return n.substring(0, digits - 1) + "." + n.substring(digits - 1);
            };
        } else {
            Matcher m = CODE_SUFFIX.matcher(t);
            if (m.matches()) {
                written = m.group(1);
                codeSuffix = m.group(2);
            }
            style = Function.identity();
            names.add("all");
            names.add("all-major");
        }
        List<ArchSuggestions.Candidate> candidates = names.stream()
                .map(n -> new ArchSuggestions.Candidate(n.startsWith("all") ? n : style.apply(n), 0)).toList();
        String suffix = codeSuffix;
        return ArchSuggestions.nearest(written, candidates).stream()
                .map(n -> n.startsWith("all") ? n : n + suffix).toList();
    }

    /** What a CUDA architecture may be, for messages. */
    static String accepted() {
        String known = CudaTargets.all().stream().map(e -> Integer.toString(e.sm())).collect(Collectors.joining(" "));
        return "Accepted: a known compute capability (" + known + "; a/f variants where they exist) written 90, 90a,"
                + " 100f, 80-real, 90a-virtual, sm_90, sm_90a, compute_90 or 9.0, or all / all-major.";
    }
}
