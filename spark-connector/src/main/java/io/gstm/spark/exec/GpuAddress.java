package io.gstm.spark.exec;

/**
 * Turns the address of a task's {@code gpu} resource into the CUDA device ordinal this process
 * opens. A discovery script reports physical GPU indexes; where the executor's process sees only
 * some GPUs ({@code CUDA_VISIBLE_DEVICES}, as YARN and container runtimes set it), CUDA numbers
 * the visible ones from 0, so the address is looked up in that list.
 */
final class GpuAddress {
  private GpuAddress() {}

  /**
   * The ordinal of {@code address} under {@code visibleDevices} (the value of
   * {@code CUDA_VISIBLE_DEVICES}, null when unset): its place in the list when listed there, else
   * the address itself as a number.
   *
   * @throws IllegalArgumentException when the address is not a device index and not listed
   */
  static int ordinal(String address, String visibleDevices) {
    String a = address.trim();
    if (visibleDevices != null && !visibleDevices.isBlank()) {
      String[] visible = visibleDevices.split(",");
      for (int i = 0; i < visible.length; i++) {
        if (visible[i].trim().equals(a)) {
          return i;
        }
      }
    }
    try {
      int ordinal = Integer.parseInt(a);
      if (ordinal >= 0) {
        return ordinal;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException("the task's gpu resource address '" + address
        + "' is neither a device index nor listed in CUDA_VISIBLE_DEVICES="
        + (visibleDevices == null ? "(unset)" : visibleDevices)
        + ": the worker's GPU discovery script must print device indexes");
  }
}
