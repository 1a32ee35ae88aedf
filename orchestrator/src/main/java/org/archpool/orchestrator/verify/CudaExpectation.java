package org.archpool.orchestrator.verify;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CUDA: a requested {@code 90}, {@code 90-real} or {@code 90a} needs real code ({@code sm_90}, {@code sm_90a});
 * {@code 90-virtual} needs PTX ({@code compute_90}). PTX alone where real code was requested does not count: the
 * driver would JIT-compile it at load time, which is not what was asked for. Real code for an architecture nobody
 * asked for is extra.
 */
final class CudaExpectation implements Expectation {

    private static final Pattern REQUEST = Pattern.compile("(\\d+[af]?)(-real|-virtual)?");

    private final Set<String> required = new LinkedHashSet<>();
    private final Set<String> allowedReal = new LinkedHashSet<>();

    CudaExpectation(List<String> requested) {
        for (String arch : requested) {
            Matcher m = REQUEST.matcher(arch);
            if (!m.matches()) {
                continue;
            }
            if ("-virtual".equals(m.group(2))) {
                required.add("compute_" + m.group(1));
            } else {
                required.add("sm_" + m.group(1));
                allowedReal.add("sm_" + m.group(1));
            }
        }
    }

    @Override
    public List<String> missing(List<String> found) {
        return required.stream().filter(r -> !found.contains(r)).toList();
    }

    @Override
    public List<String> extra(List<String> found) {
        return found.stream().filter(f -> f.startsWith("sm_") && !allowedReal.contains(f)).toList();
    }

    @Override
    public String explain(List<String> found, List<String> missing) {
        List<String> ptxOnly = new ArrayList<>();
        for (String m : missing) {
            if (m.startsWith("sm_") && found.contains("compute_" + m.substring(3))) {
                ptxOnly.add(m.substring(3));
            }
        }
        if (!ptxOnly.isEmpty()) {
            return " (only PTX for " + String.join(", ", ptxOnly) + ", which the driver would JIT-compile at load"
                    + " time)";
        }
        if (found.stream().anyMatch(f -> f.startsWith("gfx"))) {
            return " (it holds AMD code: was it built for HIP?)";
        }
        return "";
    }
}
