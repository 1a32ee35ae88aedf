/**
 * What a build did, for machines and for people: the JSON report ({@code BuildReport}, schema in
 * docs/report.schema.json) and the files other tools read ({@code JunitXmlWriter}, {@code ChromeTraceWriter},
 * {@code HtmlReportWriter}, {@code PrometheusFile}), all written by {@code ReportFiles} through
 * {@code output.AtomicFile} (a temporary file, then a rename); the console's status line and summary table
 * ({@code ConsoleReporter}) and the coordinator's log ({@code LogReporter}).
 */
package org.archpool.orchestrator.report;
