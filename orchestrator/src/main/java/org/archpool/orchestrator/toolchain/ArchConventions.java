package org.archpool.orchestrator.toolchain;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * The environment variables through which nested tools learn the architecture instead of probing:
 * {@code HIPARCHS}/{@code CUDAARCHS} (CMake's initial {@code CMAKE_*_ARCHITECTURES}, also read by GT4Py),
 * {@code PYTORCH_ROCM_ARCH} and {@code TORCH_CUDA_ARCH_LIST} (PyTorch extensions).
 */
public final class ArchConventions {

    private static final Pattern CUDA_ARCH = Pattern.compile("(\\d+)(\\d)([af]?)(-real|-virtual)?");

    private ArchConventions() {
    }

    /** The variables for {@code target}, in a stable order. */
    public static Map<String, String> environment(Target target) {
        Map<String, String> env = new LinkedHashMap<>();
        String list = target.cmakeList();
        if (target.platform() == Platform.HIP) {
            env.put("HIPARCHS", list);
            env.put("PYTORCH_ROCM_ARCH", list);
        } else {
            env.put("CUDAARCHS", list);
            env.put("TORCH_CUDA_ARCH_LIST", torchCudaArchList(target.archs()));
        }
        return env;
    }

    /**
     * PyTorch's spelling: {@code 90} (real + PTX in CMake) → {@code 9.0+PTX}, {@code 90-real} → {@code 9.0},
     * {@code 90a} → {@code 9.0a}. {@code all} and {@code all-major} have no PyTorch equivalent and are passed
     * as they are, so that PyTorch rejects them loudly rather than guessing.
     */
    static String torchCudaArchList(List<String> archs) {
        StringBuilder out = new StringBuilder();
        for (String arch : archs) {
            if (out.length() > 0) {
                out.append(';');
            }
            Matcher m = CUDA_ARCH.matcher(arch);
            if (!m.matches()) {
                out.append(arch);
                continue;
            }
            out.append(m.group(1)).append('.').append(m.group(2)).append(m.group(3));
            if (!"-real".equals(m.group(4))) {
                out.append("+PTX");
            }
        }
        return out.toString();
    }
}
