package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The grammar of one HIP architecture as a person writes it (see {@link HipArch#parse}), with the messages that
 * explain what is wrong with anything else.
 */
final class HipGrammar {

    private static final List<String> FEATURES = List.of("sramecc", "xnack");

    private HipGrammar() {
    }

    static HipArch parse(String token) throws ArchSyntaxException {
        ArchText.requireToken(token);
        String t = token.toLowerCase(Locale.ROOT);
        if (t.equals("native")) {
            throw ArchList.nativeRefused();
        }
        String[] parts = t.split(":", -1);
        String processor = parts[0];
        Optional<AmdTargets.Entry> known = HipArch.PROCESSOR.matcher(processor).matches()
                ? AmdTargets.lookup(processor) : Optional.empty();
        if (known.isEmpty()) {
            throw unknown(token, t, parts);
        }
        AmdTargets.Entry entry = known.get();
        List<String> features = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 1; i < parts.length; i++) {
            String feature = parts[i];
            if (feature.isEmpty()) {
                throw new ArchSyntaxException(quote(token) + " has an empty target feature (a doubled or"
                        + " trailing ':'). Write features as :sramecc+/- or :xnack+/-, e.g. "
                        + example(entry) + ". Fix: --arch " + example(entry));
            }
            char sign = feature.charAt(feature.length() - 1);
            boolean signed = sign == '+' || sign == '-';
            String name = signed ? feature.substring(0, feature.length() - 1) : feature;
            if (!FEATURES.contains(name)) {
                throw new ArchSyntaxException(quote(token) + " names the target feature "
                        + quote(feature) + ", but target IDs only carry sramecc and xnack (each followed by"
                        + " + or -)" + featureHint(name) + ". Fix: --arch " + example(entry));
            }
            if (!signed) {
                throw new ArchSyntaxException(quote(token) + " names " + name + " without a sign: write "
                        + name + "+ (on) or " + name + "- (off), or leave it out to run in either mode. Fix: --arch "
                        + processor + ":" + name + "-");
            }
            if (!seen.add(name)) {
                throw new ArchSyntaxException(quote(token) + " names " + name + " more than once; a target"
                        + " ID gives each feature at most once. Fix: --arch " + processor + ":" + feature);
            }
            if (!entry.features().contains(name)) {
                throw new ArchSyntaxException(quote(token) + ": " + unsupported(entry, name));
            }
            features.add(feature);
        }
        return new HipArch(processor, features);
    }

    /** The parsed value, or empty; never throws for text that is not a HIP architecture. */
    static Optional<HipArch> tryParse(String token) {
        try {
            return Optional.of(parse(token));
        } catch (ArchSyntaxException e) {
            return Optional.empty();
        }
    }

    private static String unsupported(AmdTargets.Entry entry, String name) {
        String p = entry.name();
        if (entry.features().isEmpty()) {
            return p + " has no target-ID features (xnack and sramecc only exist on GFX9 and GFX10.1 targets;"
                    + " RDNA2 and later have neither), so it cannot pin " + name + ". Fix: --arch " + p;
        }
        String has = entry.features().stream().sorted().collect(Collectors.joining(" and "));
        String why = p.equals("gfx9-generic") && name.equals("sramecc")
                ? " (sramecc is not available through gfx9-generic, even for gfx906)" : "";
        return p + " has " + has + " only, not " + name + why + ". Fix: --arch " + p + " (or " + p + ":"
                + has.split(" ")[0] + "-)";
    }

    private static String featureHint(String name) {
        return switch (name) {
            case "tgsplit", "wavefrontsize64", "wavefrontsize32", "cumode" ->
                    "; " + name + " is a compiler option (-m" + name + "), not part of a target ID";
            case "sram-ecc" -> "; LLVM spells it sramecc";
            default -> "";
        };
    }

    private static String example(AmdTargets.Entry entry) {
        if (entry.features().isEmpty()) {
            return entry.name();
        }
        return entry.name() + ":" + entry.features().stream().sorted().map(f -> f + "-")
                .collect(Collectors.joining(":"));
    }

    private static ArchSyntaxException unknown(String token, String t, String[] parts) {
        String processor = parts[0];
        String suffix = t.substring(processor.length());
        String hint = null;
        String otherPlatformFix = null;
        List<String> suggestions = List.of();
        List<AmdTargets.Entry> aliased = AmdTargets.byAlias(processor);
        List<CudaTargets.Entry> nvidia = CudaTargets.byAlias(processor);
        Optional<CudaArch> cuda = suffix.isEmpty() ? CudaGrammar.tryParse(t) : Optional.empty();
        if (!aliased.isEmpty()) {
            hint = "it is a product, code or family name of "
                    + aliased.stream().map(AmdTargets.Entry::describe).collect(Collectors.joining(", "));
            suggestions = aliased.stream().map(AmdTargets.Entry::name).limit(ArchSuggestions.MAX).toList();
        } else if (cuda.isPresent()) {
            hint = "it is a CUDA (NVIDIA) architecture, not a HIP architecture";
            otherPlatformFix = "--platform cuda --arch " + cuda.get().cmakeName();
            suggestions = repairs(processor);
        } else if (!nvidia.isEmpty()) {
            hint = "it is an NVIDIA GPU, compute capability "
                    + nvidia.stream().map(CudaTargets.Entry::describe).collect(Collectors.joining(", "))
                    + ", built with --platform cuda";
            otherPlatformFix = "--platform cuda --arch " + nvidia.get(0).sm();
        } else if (t.startsWith("sm") || t.startsWith("compute")) {
            hint = "it looks like a CUDA (NVIDIA) architecture, not a HIP architecture";
            otherPlatformFix = "--platform cuda --arch 90";
        } else {
            if (HipArch.PROCESSOR.matcher(processor).matches()) {
                hint = "it is not in archpool's table of known AMD targets";
            }
            suggestions = ArchSuggestions.merge(repairs(processor), ArchSuggestions.nearest(processor, candidates()));
        }
        List<String> withFeatures = suggestions.stream().map(s -> withSuffix(s, suffix)).toList();
        String fix;
        if (otherPlatformFix == null) {
            fix = "--arch " + (withFeatures.isEmpty() ? "gfx942" : withFeatures.get(0));
        } else if (withFeatures.isEmpty()) {
            fix = otherPlatformFix;
        } else {
            fix = "--arch " + withFeatures.get(0) + " (AMD) or " + otherPlatformFix + " (NVIDIA)";
        }
        return new ArchSyntaxException(quote(token) + " is not a known HIP architecture"
                + (hint == null ? "" : ": " + hint) + "." + ArchSuggestions.didYouMean(withFeatures) + " " + accepted()
                + " Fix: " + fix + ".");
    }

    /** Known names that a common slip stands for: {@code 942} or {@code 90a} without gfx, {@code gfx-942}. */
    private static List<String> repairs(String processor) {
        List<String> out = new ArrayList<>();
        String squashed = processor.startsWith("gfx") ? "gfx" + processor.substring(3).replaceFirst("^[-_.]+", "")
                : "gfx" + processor.replaceFirst("^[-_.]+", "");
        if (AmdTargets.lookup(squashed).isPresent()) {
            out.add(squashed);
        }
        return out;
    }

    /** {@code suggestion} with the written features, where it has them all; otherwise bare. */
    private static String withSuffix(String suggestion, String suffix) {
        if (suffix.isEmpty()) {
            return suggestion;
        }
        String candidate = suggestion + suffix;
        return tryParse(candidate).map(HipArch::cmakeName).orElse(suggestion);
    }

    private static List<ArchSuggestions.Candidate> candidates() {
        return AmdTargets.all().stream().map(e -> new ArchSuggestions.Candidate(e.name(), tier(e))).toList();
    }

    private static int tier(AmdTargets.Entry e) {
        if (e.preRelease()) {
            return 3;
        }
        if (e.isGeneric()) {
            return 1;
        }
        return e.family().isEmpty() ? 2 : 0;
    }

    /** What a HIP architecture may be, for messages. */
    static String accepted() {
        String processors = AmdTargets.all().stream().filter(e -> !e.isGeneric()).map(AmdTargets.Entry::name)
                .collect(Collectors.joining(" "));
        String generic = AmdTargets.all().stream().filter(AmdTargets.Entry::isGeneric).map(AmdTargets.Entry::name)
                .collect(Collectors.joining(" "));
        return "Accepted: a known AMD processor (" + processors + ") or generic target (" + generic
                + "), optionally with :sramecc+/- and :xnack+/- where it has them, e.g. gfx90a:xnack- or"
                + " gfx942:sramecc+:xnack-.";
    }
}
