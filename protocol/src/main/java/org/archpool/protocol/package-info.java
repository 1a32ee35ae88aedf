/**
 * The worker protocol and the build manifest as values: JSON-lines messages exchanged between the
 * coordinator and its workers, job specifications, targets and outcomes. No behaviour beyond validation.
 */
package org.archpool.protocol;
