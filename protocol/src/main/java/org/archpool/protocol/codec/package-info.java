/**
 * JSON-lines encoding of protocol messages: one UTF-8 JSON object per line, bounded in size, unknown
 * fields ignored, every malformed line a {@link org.archpool.protocol.codec.ProtocolException}.
 */
package org.archpool.protocol.codec;
