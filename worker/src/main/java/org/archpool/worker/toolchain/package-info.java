/**
 * Turning a job and its target into what its processes run with: CMake configure/build invocations and
 * the environment conventions nested tools read instead of probing. A command job's argv arrives concrete
 * (the coordinator expanded its placeholders) and is run as given.
 */
package org.archpool.worker.toolchain;
