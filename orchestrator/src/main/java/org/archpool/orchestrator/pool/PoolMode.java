package org.archpool.orchestrator.pool;

/** {@code --mode}: worker JVMs (the default) or threads of the coordinator. */
public enum PoolMode {
    PROCESS, THREAD
}
