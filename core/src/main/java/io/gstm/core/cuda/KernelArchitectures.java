package io.gstm.core.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * What the kernels jar was built for (its {@code kernels.properties}), and whether a device of a
 * given compute capability can run it. A pure function, tested without a GPU.
 *
 * @param cubins architectures with a cubin, e.g. 80 and 90
 * @param ptx the PTX architecture (JIT-compiled for newer devices), or 0 for none
 * @param kernels names of the fatbins
 */
public record KernelArchitectures(List<Integer> cubins, int ptx, List<String> kernels) {
  static final String RESOURCE = "/gstm/kernels/kernels.properties";

  /** Reads the properties the kernels build wrote; empty when it was built without kernels. */
  public static KernelArchitectures load() {
    try (InputStream in = KernelArchitectures.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return new KernelArchitectures(List.of(), 0, List.of());
      }
      Properties p = new Properties();
      p.load(in);
      return parse(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static KernelArchitectures parse(Properties p) {
    List<Integer> cubins = new ArrayList<>();
    for (String a : split(p.getProperty("architectures", ""))) {
      cubins.add(Integer.parseInt(a));
    }
    String ptx = p.getProperty("ptx", "").replace("compute_", "");
    return new KernelArchitectures(
        List.copyOf(cubins), ptx.isBlank() ? 0 : Integer.parseInt(ptx.trim()),
        split(p.getProperty("kernels", "")));
  }

  private static List<String> split(String csv) {
    List<String> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      if (!s.isBlank()) {
        out.add(s.trim());
      }
    }
    return List.copyOf(out);
  }

  /**
   * True when a cubin runs on the device (same major version, minor not newer than the
   * device's) or the PTX can be JIT-compiled for it (PTX architecture not newer than the device).
   */
  public boolean supports(int major, int minor) {
    int device = major * 10 + minor;
    for (int a : cubins) {
      if (a / 10 == major && a % 10 <= minor) {
        return true;
      }
    }
    return ptx != 0 && ptx <= device;
  }

  /** Why a device cannot run these kernels, for error messages. */
  public String explain(int major, int minor) {
    if (kernels.isEmpty()) {
      return "the kernels jar holds no kernels (built without nvcc, or with "
          + "GSTM_KERNEL_ARCHS=none)";
    }
    return "kernels built for sm_" + cubins + (ptx != 0 ? " + compute_" + ptx + " PTX" : "")
        + " cannot run on a device of compute capability " + major + "." + minor;
  }
}
