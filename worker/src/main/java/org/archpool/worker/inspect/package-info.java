/**
 * Reads which CUDA GPU architectures a built ELF file (object, shared library, executable) carries device code
 * for, from the fat binary nvcc embeds in it, so that a job can prove its output contains the architecture it was
 * asked for. Pure Java: no CUDA toolkit, driver or GPU is needed to read.
 *
 * <p>{@link org.archpool.worker.inspect.CudaArchReader} is the entry point;
 * {@link org.archpool.worker.inspect.ElfFile} reads the ELF container and
 * {@link org.archpool.worker.inspect.CudaFatbin} the fat binary, whose layout it documents as measured.
 */
package org.archpool.worker.inspect;
