package io.gstm.spark.cli;

import io.gstm.spark.exec.EngineSurvey;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Checks a deployment: which engine every executor's tasks get (its GPU, and from where, or the
 * JVM engine and why), one line per executor.
 */
@Command(name = "executors", mixinStandardHelpOptions = true,
    description = "One line per executor: host, process, the engine its tasks get and why.")
public final class ExecutorsCommand implements Callable<Integer> {
  @Mixin
  SparkOptions spark = new SparkOptions();

  @Option(names = "--expect", description = "fail (status 1) unless this many executors answer "
      + "(default: no check)")
  int expect = -1;

  @Option(names = "--tasks-per-core", description = "survey tasks per core, so that every "
      + "executor gets some (default: ${DEFAULT-VALUE})")
  int tasksPerCore = 4;

  @Override
  public Integer call() {
    SparkSession session = spark.session("gstm-executors");
    try {
      List<EngineSurvey.Executor> all = EngineSurvey.run(session, tasksPerCore);
      System.out.printf(Locale.ROOT, "%d executor(s), master %s%n", all.size(), spark.master);
      for (EngineSurvey.Executor e : all) {
        System.out.printf(Locale.ROOT, "executor %s on %s (pid %d, %d task(s)): %s, %s: %s%n",
            e.executorId(), e.host(), e.pid(), e.tasks(), e.gpu() ? "GPU" : "JVM engine",
            e.device(), e.reason());
      }
      if (expect >= 0 && all.size() != expect) {
        System.out.printf(Locale.ROOT, "expected %d executor(s), %d answered%n", expect,
            all.size());
        return 1;
      }
      return 0;
    } finally {
      SparkOptions.stop(session);
    }
  }
}
