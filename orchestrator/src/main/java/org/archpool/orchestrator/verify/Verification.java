package org.archpool.orchestrator.verify;

import java.util.Objects;

/**
 * How the GPU code of each job's artifacts is judged.
 *
 * @param policy         {@code --verify}: what a mismatch between requested and built architectures does
 * @param forbidHostcall {@code --forbid-hostcall}: fail jobs whose AMD kernels need a hostcall buffer
 */
public record Verification(VerifyPolicy policy, boolean forbidHostcall) {

    /** {@code --verify strict}, hostcalls allowed. */
    public static final Verification DEFAULT = new Verification(VerifyPolicy.STRICT, false);

    public Verification {
        Objects.requireNonNull(policy, "policy");
    }
}
