/** What a build did, for machines (the JSON report) and for people (the console summary). */
package org.archpool.orchestrator.report;
