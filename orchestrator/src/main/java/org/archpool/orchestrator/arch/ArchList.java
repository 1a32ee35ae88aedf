package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;

/**
 * Parses a user's architecture list into CMake's canonical spelling. Lists split on {@code ,}, {@code ;}
 * or whitespace; empty tokens are dropped, duplicates dropped keeping the first.
 * <ul>
 *   <li>HIP: {@code gfxNNN[N]} or a {@code gfx…-generic} name, with optional {@code :sramecc±}/{@code :xnack±}.</li>
 *   <li>CUDA: {@code 90}, {@code 90a}, {@code 100f}, with {@code -real}/{@code -virtual}; also {@code sm_90}
 *       (→ {@code 90-real}), {@code compute_90} (→ {@code 90-virtual}), {@code 9.0} (→ {@code 90});
 *       {@code all} and {@code all-major}.</li>
 * </ul>
 * {@code native} is refused: only the coordinator's own detection may stand in for it.
 */
public final class ArchList {

    private static final Pattern HIP = Pattern.compile(
            "gfx(?:[0-9]{1,2}[0-9a-f]{2}|[0-9]{1,2}(?:-[0-9])?-generic)((?::(?:sramecc|xnack)[+-])*)");
    private static final Pattern CUDA = Pattern.compile("([1-9][0-9]{1,2})([af]?)(-real|-virtual)?");
    private static final Pattern CUDA_SM = Pattern.compile("(sm|compute)_([1-9][0-9]{1,2})([af]?)");
    private static final Pattern CUDA_DOTTED = Pattern.compile("([1-9][0-9]?)\\.([0-9])([af]?)");
    /** CUDA 13 builds nothing older than Turing. */
    private static final int OLDEST_CUDA_SM = 75;

    private ArchList() {
    }

    /** Splits and canonicalises {@code text}; never returns an empty list. */
    public static List<String> parse(Platform platform, String text) throws ArchSyntaxException {
        List<String> tokens = new ArrayList<>();
        for (String token : text.split("[,;\\s]+")) {
            if (!token.isEmpty()) {
                tokens.add(token);
            }
        }
        if (tokens.isEmpty()) {
            throw new ArchSyntaxException("the architecture list '" + text + "' is empty; name at least one, e.g. "
                    + (platform == Platform.HIP ? "gfx942" : "90"));
        }
        Set<String> out = new LinkedHashSet<>();
        for (String token : tokens) {
            out.add(platform == Platform.HIP ? hip(token) : cuda(token));
        }
        return List.copyOf(out);
    }

    /** The platform an explicit list belongs to, judged by its first token, or null when it cannot tell. */
    public static Platform guessPlatform(String text) {
        String first = text.trim().split("[,;\\s]+")[0].toLowerCase(Locale.ROOT);
        if (first.startsWith("gfx")) {
            return Platform.HIP;
        }
        if (first.matches("(sm_|compute_)?[0-9.]+[af]?(-real|-virtual)?|all|all-major")) {
            return Platform.CUDA;
        }
        return null;
    }

    private static String hip(String token) throws ArchSyntaxException {
        rejectNative(token);
        String t = token.toLowerCase(Locale.ROOT);
        if (HIP.matcher(t).matches()) {
            return t;
        }
        throw new ArchSyntaxException("'" + token + "' is not a HIP architecture: write a gfx target such as gfx90a,"
                + " gfx942 or gfx1100, optionally with :sramecc+/- and :xnack+/- (e.g. gfx90a:xnack-)");
    }

    private static String cuda(String token) throws ArchSyntaxException {
        rejectNative(token);
        String t = token.toLowerCase(Locale.ROOT);
        if (t.equals("all") || t.equals("all-major")) {
            return t;
        }
        Matcher m;
        String canonical = null;
        int sm = 0;
        if ((m = CUDA.matcher(t)).matches()) {
            canonical = t;
            sm = Integer.parseInt(m.group(1));
        } else if ((m = CUDA_SM.matcher(t)).matches()) {
            sm = Integer.parseInt(m.group(2));
            canonical = m.group(2) + m.group(3) + (m.group(1).equals("sm") ? "-real" : "-virtual");
        } else if ((m = CUDA_DOTTED.matcher(t)).matches()) {
            sm = Integer.parseInt(m.group(1) + m.group(2));
            canonical = sm + m.group(3);
        }
        if (canonical == null) {
            throw new ArchSyntaxException("'" + token + "' is not a CUDA architecture: write a compute capability"
                    + " such as 90, 90a, 100f or 80-real (sm_90, compute_90 and 9.0 are accepted too), or all / all-major");
        }
        if (sm < OLDEST_CUDA_SM) {
            throw new ArchSyntaxException("'" + token + "' is older than sm_" + OLDEST_CUDA_SM
                    + ", which current CUDA toolkits no longer build; choose 75 or newer");
        }
        return canonical;
    }

    private static void rejectNative(String token) throws ArchSyntaxException {
        if (token.equalsIgnoreCase("native")) {
            throw new ArchSyntaxException("'native' is not passed to builds: it makes CMake and nvcc probe a GPU"
                    + " from inside the build (and silently pick a default without one). Leave out --arch and"
                    + " archpool detects the GPU once, or name the architecture.");
        }
    }
}
