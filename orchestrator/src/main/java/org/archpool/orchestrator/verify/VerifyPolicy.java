package org.archpool.orchestrator.verify;

/** {@code --verify}: what a mismatch between requested and built architectures does to a job. */
public enum VerifyPolicy {
    /** A requested architecture missing from an artifact fails the job; extra ones are warnings (default). */
    STRICT,
    /** Missing and extra architectures both fail the job. */
    EXACT,
    /** Mismatches are warnings only. */
    WARN,
    /** Artifacts are not checked. */
    OFF
}
