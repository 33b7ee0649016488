package io.gstm.spark.graph;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The outcome of {@link GraphRelaxation#run()}.
 *
 * @param values (id: long, value: double) for every vertex: the distance from the source
 *     (+infinity where unreachable) or the component label (the component's smallest id); backed
 *     by the last superstep's locally checkpointed blocks, which each action turns into rows, so
 *     reading it reruns no relaxation (cache it to keep the rows themselves)
 * @param report supersteps, transactions, commits, aborts, times and engine
 */
public record RelaxationResult(Dataset<Row> values, RelaxationReport report) {}
