package org.archpool.orchestrator.verify;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HIP: each requested target ID ({@code gfx90a}, {@code gfx90a:xnack+}) needs a code object for the same
 * processor whose feature settings agree with every feature the request names: a code object built for
 * {@code xnack+} does not satisfy {@code gfx90a:xnack-}, one built for "any" ({@code gfx90a}) satisfies both, and
 * a request that names no feature is satisfied by any code object of its processor. Code objects for other
 * processors are extra. CUDA code in a HIP build means hipcc chose the NVIDIA platform.
 */
final class HipExpectation implements Expectation {

    /** What hipcc builds when it is given no {@code --offload-arch} and cannot detect a GPU. */
    static final String HIPCC_DEFAULT = "gfx803";

    private final List<TargetId> requested = new ArrayList<>();

    HipExpectation(List<String> requested) {
        for (String r : requested) {
            this.requested.add(TargetId.parse(r));
        }
    }

    @Override
    public List<String> missing(List<String> found) {
        List<TargetId> built = found.stream().filter(f -> f.startsWith("gfx")).map(TargetId::parse).toList();
        List<String> missing = new ArrayList<>();
        for (TargetId want : requested) {
            if (built.stream().noneMatch(want::satisfiedBy)) {
                missing.add(want.text());
            }
        }
        return missing;
    }

    @Override
    public List<String> extra(List<String> found) {
        return found.stream()
                .filter(f -> f.startsWith("gfx"))
                .filter(f -> requested.stream().noneMatch(r -> r.processor().equals(TargetId.parse(f).processor())))
                .toList();
    }

    @Override
    public String explain(List<String> found, List<String> missing) {
        boolean amd = found.stream().anyMatch(f -> f.startsWith("gfx"));
        if (!amd && found.stream().anyMatch(f -> f.startsWith("sm_") || f.startsWith("compute_"))) {
            return " (it holds NVIDIA code only: hipcc chose the NVIDIA platform; set HIP_PLATFORM=amd)";
        }
        if (found.contains(HIPCC_DEFAULT) && requested.stream().noneMatch(r -> r.processor().equals(HIPCC_DEFAULT))) {
            return " (" + HIPCC_DEFAULT + " is what hipcc builds when it is given no --offload-arch)";
        }
        return "";
    }

    /** A target ID: a processor and the features it sets, {@code gfx90a:sramecc+:xnack-}. */
    record TargetId(String text, String processor, Map<String, Boolean> features) {

        static TargetId parse(String text) {
            String[] parts = text.split(":");
            Map<String, Boolean> features = new LinkedHashMap<>();
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i];
                if (p.length() > 1 && (p.endsWith("+") || p.endsWith("-"))) {
                    features.put(p.substring(0, p.length() - 1), p.endsWith("+"));
                }
            }
            return new TargetId(text, parts[0], features);
        }

        /** Same processor, and every feature this request sets is set the same way or left "any" by the code. */
        boolean satisfiedBy(TargetId built) {
            if (!processor.equals(built.processor)) {
                return false;
            }
            for (Map.Entry<String, Boolean> f : features.entrySet()) {
                Boolean setting = built.features.get(f.getKey());
                if (setting != null && !setting.equals(f.getValue())) {
                    return false;
                }
            }
            return true;
        }
    }
}
