/**
 * What a build did, as Micrometer meters: job timers and counters, worker starts and deaths, probes, and live
 * gauges of the pool; written as Prometheus text with {@code --metrics FILE}. Every name is listed in
 * {@code docs/metrics.md}.
 */
package org.archpool.orchestrator.metrics;
