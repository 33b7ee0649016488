/**
 * Spark connector for gstm: DataFrame operations over partitioned transactional state. A thin
 * placeholder until its own issue adds graph relaxation and k-means on top of {@code gstm-core}.
 */
package io.gstm.spark;
