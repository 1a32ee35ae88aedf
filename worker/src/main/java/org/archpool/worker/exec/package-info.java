/**
 * Running a job's processes: the hidden-device environment, per-job log files, time limits and killing
 * whole process trees.
 */
package org.archpool.worker.exec;
