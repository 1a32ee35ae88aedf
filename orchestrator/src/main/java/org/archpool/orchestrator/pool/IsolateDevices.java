package org.archpool.orchestrator.pool;

/**
 * {@code --isolate-devices}: whether workers must run with the GPU devices masked ({@link DeviceIsolation}).
 */
public enum IsolateDevices {
    /** Masked where the kernel allows it, else the environment alone (said once on the console). */
    AUTO,
    /** Masked, or the build does not start. */
    ON,
    /** The environment alone; the processes of each step are still contained. */
    OFF
}
