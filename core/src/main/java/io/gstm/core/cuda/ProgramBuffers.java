package io.gstm.core.cuda;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.program.Column;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramResult;
import java.util.List;
import jcuda.Pointer;

/**
 * The device side of a program batch, owned by its {@link BatchBuffers}: the image, the types,
 * the columns at the image's offsets, and the outputs and abort codes the kernel writes.
 */
record ProgramBuffers(DeviceBuffer image, DeviceBuffer types, DeviceBuffer columns,
    DeviceBuffer outputs, DeviceBuffer abortCodes, int outputSlots, int txCount) {

  static ProgramBuffers upload(BatchBuffers buf, ProgramBinding binding, ProgramImage image,
      int outputSlots) {
    ProgramBatch batch = binding.batch();
    int n = batch.txCount();
    DeviceBuffer img = buf.table(4L * image.words().length);
    img.upload(Pointer.to(image.words()), 4L * image.words().length);
    DeviceBuffer types = buf.table(4L * n);
    types.upload(Pointer.to(batch.types()), 4L * n);
    DeviceBuffer cols = buf.table(Math.max(8, 4 * image.columnWords()));
    List<Column> columns = binding.columns();
    for (int c = 0; c < columns.size(); c++) {
      Column col = columns.get(c);
      long at = image.columnOffsets()[c];
      if (col.ints() != null) {
        cols.uploadAt(at, col.ints());
      } else {
        cols.uploadAtByte(4 * at, Pointer.to(col.longs()), 8L * n);
      }
    }
    DeviceBuffer outputs = buf.table(8L * outputSlots * n);
    outputs.zero();
    DeviceBuffer codes = buf.table(4L * n);
    codes.zero();
    return new ProgramBuffers(img, types, cols, outputs, codes, outputSlots, n);
  }

  /** Downloads outputs and abort codes beside the batch's statistics. */
  ProgramResult result(BatchResult stats, ProgramBatch batch) {
    long[] out = new long[outputSlots * txCount];
    outputs.download(Pointer.to(out), 8L * out.length);
    int[] codes = new int[txCount];
    abortCodes.download(Pointer.to(codes), 4L * txCount);
    return new ProgramResult(stats, batch, out, codes);
  }
}
