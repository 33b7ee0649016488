package io.gstm.core.cuda;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.program.Column;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramResult;
import java.util.List;
import jcuda.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device side of a program batch, owned by its {@link BatchBuffers}: the image, the types,
 * the columns at the image's offsets, and the outputs and abort codes the kernel writes. Only
 * what the batch needs crosses the bus: one type for all (a device fill) when every transaction
 * runs the same program, outputs when the programs have some, abort codes when one may abort.
 */
record ProgramBuffers(BatchBuffers buf, DeviceBuffer image, DeviceBuffer types,
    DeviceBuffer columns, DeviceBuffer outputs, DeviceBuffer abortCodes, int outputSlots,
    int txCount) {

  static ProgramBuffers upload(BatchBuffers buf, ProgramBinding binding, ProgramImage image,
      int outputSlots) {
    ProgramBatch batch = binding.batch();
    int n = batch.txCount();
    DeviceBuffer img = buf.table(4L * image.words().length);
    img.upload(Pointer.to(image.words()), 4L * image.words().length);
    DeviceBuffer types = buf.table(4L * n);
    if (batch.uniformType() >= 0) {
      types.fill32(batch.uniformType(), n);
    } else {
      buf.upload(types, 0, batch.typesView());
    }
    DeviceBuffer cols = buf.table(Math.max(8, 4 * image.columnWords()));
    List<Column> columns = binding.columns();
    for (int c = 0; c < columns.size(); c++) {
      Column col = columns.get(c);
      long at = image.columnOffsets()[c];
      if (col.ints() != null) {
        buf.upload(cols, at, col.ints());
      } else {
        buf.upload(cols, 4 * at, col.longs());
      }
    }
    DeviceBuffer outputs = buf.table(8L * outputSlots * n);
    outputs.zero();
    DeviceBuffer codes = buf.table(4L * n);
    codes.zero();
    return new ProgramBuffers(buf, img, types, cols, outputs, codes, outputSlots, n);
  }

  private static final Logger LOG = LoggerFactory.getLogger(ProgramBuffers.class);

  /** Whether a program the batch runs has outputs (its first is its result). */
  static boolean outputsWritten(ProgramBatch batch) {
    boolean[] used = batch.usedPrograms();
    boolean written = false;
    for (int p = 0; p < used.length; p++) {
      written |= used[p] && !batch.programs().get(p).outputs().isEmpty();
    }
    return written;
  }

  /**
   * Downloads outputs and abort codes beside the batch's statistics: every transaction's outputs
   * ({@code allOutputs}), else the committed transactions' alone, picked as the copy lands.
   */
  ProgramResult result(BatchResult stats, ProgramBatch batch, boolean allOutputs) {
    boolean[] used = batch.usedPrograms();
    boolean outputsWritten = outputsWritten(batch);
    boolean mayAbort = false;
    for (int p = 0; p < used.length; p++) {
      mayAbort |= used[p] && batch.programs().get(p).mayAbort();
    }
    long[] out = new long[outputsWritten && allOutputs ? outputSlots * txCount : 0];
    ProgramResult.CommittedOutputs committed = null;
    long t0 = System.nanoTime();
    long listed = t0;
    if (allOutputs && outputsWritten && stats.commits() > 0) {
      buf.download(outputs, out);
    } else if (!allOutputs) {
      int[][] rows = outputsWritten && stats.commits() > 0
          ? ProgramResult.committedWithOutputs(stats.outcomes(), batch)
          : new int[batch.programs().maxOutputs()][0];
      listed = System.nanoTime();
      committed = new ProgramResult.CommittedOutputs(rows,
          buf.downloadPicked(outputs, txCount, rows));
    }
    long t1 = System.nanoTime();
    ProgramResult.AbortCodes aborts = ProgramResult.AbortCodes.NONE;
    // Only the aborted transactions' codes are kept, picked as the copy lands; listing them is
    // the scan for whether there are any.
    int[] rows = mayAbort ? ProgramResult.userAborts(stats.outcomes()) : new int[0];
    long t2 = System.nanoTime();
    if (rows.length > 0) {
      aborts = ProgramResult.AbortCodes.of(rows, buf.downloadPicked(abortCodes, txCount, rows),
          false);
    }
    if (LOG.isDebugEnabled()) {
      LOG.debug("outputs and abort codes of {}: committed rows with outputs listed in {} ms, "
              + "their outputs brought in {} ms; {} aborted rows listed in {} ms, their codes "
              + "brought in {} ms", txCount, CudaEngine.ms(listed - t0),
          CudaEngine.ms(t1 - listed), rows.length, CudaEngine.ms(t2 - t1),
          CudaEngine.ms(System.nanoTime() - t2));
    }
    return new ProgramResult(stats, batch, out, aborts, committed);
  }
}
