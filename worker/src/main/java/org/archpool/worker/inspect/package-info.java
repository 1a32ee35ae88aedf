/**
 * Reads the GPU code in the files a GPU build produces (objects, shared libraries, executables, static libraries,
 * bundle and fat binary files), so that a job can prove its output holds the architectures it was asked for. Pure
 * Java: no CUDA toolkit, ROCm, driver or GPU is needed to read.
 *
 * <p>{@link org.archpool.worker.inspect.GpuCodeInspector} is the entry point: it tells a file's container by its
 * first bytes and returns a {@link org.archpool.worker.inspect.GpuCode}, the CUDA images
 * ({@link org.archpool.worker.inspect.CudaCode}) and AMD code objects ({@link org.archpool.worker.inspect.HipCode})
 * found, and what could not be read. The readers it uses:
 * <ul>
 *   <li>{@link org.archpool.worker.inspect.ElfFile}: the headers and sections of a 64-bit little-endian ELF file
 *       or in-memory image;</li>
 *   <li>{@link org.archpool.worker.inspect.ArArchive}: the members of a static library;</li>
 *   <li>{@link org.archpool.worker.inspect.CudaFatbin}: a CUDA fat binary, whose layout it documents as measured,
 *       as {@link org.archpool.worker.inspect.FatbinEntry}s; {@code CubinElf} cross-checks a cubin's own
 *       header;</li>
 *   <li>{@link org.archpool.worker.inspect.OffloadBundle}: a clang offload bundle of HIP device code, plain or
 *       compressed, as {@link org.archpool.worker.inspect.OffloadBundleEntry}s; {@code CompressedBundleHeader}
 *       reads a compressed bundle's header, and {@code BoundedDecoder}, {@code ZlibDecoder}, {@code BoundedZstd}
 *       and {@code ZstdFrame} decompress it within bounds on memory;</li>
 *   <li>{@link org.archpool.worker.inspect.AmdCodeObjectReader}: an AMD GPU code object, as an
 *       {@link org.archpool.worker.inspect.AmdCodeObject}, with its processor from
 *       {@link org.archpool.worker.inspect.AmdProcessors} and its metadata decoded by
 *       {@link org.archpool.worker.inspect.MessagePack}.</li>
 * </ul>
 * {@code Bytes} holds the byte helpers the readers share. The readers reject malformed input with a subclass of
 * {@link org.archpool.worker.inspect.MalformedBinaryException}, one per format; the inspector throws it for a
 * corrupt container, and reports a corrupt section inside a readable one as a problem.
 */
package org.archpool.worker.inspect;
