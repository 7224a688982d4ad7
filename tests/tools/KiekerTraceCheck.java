/* SPDX-License-Identifier: MIT */
/*
 * KiekerTraceCheck - run a Kieker file-system log through Kieker 2.0's own trace-analysis pipeline and say what it
 * made of it.  Used by tests/tools/check-exports.sh on `emp-analyze export --kieker` output; never part of make test.
 *
 * Why a driver: Kieker publishes its analysis library on Maven Central (net.kieker-monitoring:kieker, with
 * FSReader, the record filters, TraceReconstructionFilter and the trace writers), but not the trace-analysis
 * tool's command-line front end (kieker.tools.trace.analysis.TraceAnalysisToolMain / PerformAnalysis, shipped only
 * in the binary distribution).  This driver connects the published components into the chain that
 * `trace-analysis -i DIR -o OUT --print-Execution-Traces --print-Message-Traces --print-invalid-Execution-Traces`
 * builds, with the tool's defaults: every record read (unknown record types ignored), all timestamps and trace ids
 * selected, trace reconstruction with a 10-minute maximum trace duration (time unit ms) and invalid traces NOT
 * ignored, and the three writer filters producing executionTraces.txt, messageTraces.txt and
 * invalidTraceArtifacts.txt in OUT.
 *
 * Usage: java -cp <kieker jars>:<this class> KiekerTraceCheck DIR OUT
 * stdout, one line: kieker-check records=N executions=E traces=T valid=V invalid=I exec_traces_written=W
 *                   msg_traces_written=M invalid_written=X state=<analysis state>
 *   records: the records the reader delivered to the filters (Kieker's controller consumes a metadata record itself
 *   and logs it as "Kieker metadata: ..."); executions: the
 *   OperationExecutionRecords that reached trace reconstruction.
 * Exit status: 0 when the analysis terminated normally and no trace was invalid, 1 otherwise, 2 on bad usage.
 */

import java.io.File;

import kieker.analysis.AnalysisController;
import kieker.analysis.plugin.filter.forward.CountingFilter;
import kieker.analysis.plugin.filter.select.TimestampFilter;
import kieker.analysis.plugin.filter.select.TraceIdFilter;
import kieker.analysis.plugin.reader.filesystem.FSReader;
import kieker.common.configuration.Configuration;
import kieker.tools.trace.analysis.filter.AbstractMessageTraceProcessingFilter;
import kieker.tools.trace.analysis.filter.AbstractTraceAnalysisFilter;
import kieker.tools.trace.analysis.filter.executionRecordTransformation.ExecutionRecordTransformationFilter;
import kieker.tools.trace.analysis.filter.traceReconstruction.TraceReconstructionFilter;
import kieker.tools.trace.analysis.filter.traceWriter.ExecutionTraceWriterFilter;
import kieker.tools.trace.analysis.filter.traceWriter.InvalidExecutionTraceWriterFilter;
import kieker.tools.trace.analysis.filter.traceWriter.MessageTraceWriterFilter;
import kieker.tools.trace.analysis.systemModel.repository.SystemModelRepository;

public final class KiekerTraceCheck {
	private KiekerTraceCheck() {
	}

	private static Configuration outputFile(final String key, final File dir, final String name) throws Exception {
		final Configuration c = new Configuration();
		c.setProperty(key, new File(dir, name).getCanonicalPath());
		return c;
	}

	public static void main(final String[] args) throws Exception {
		if (args.length != 2) {
			System.err.println("usage: KiekerTraceCheck LOG_DIR OUT_DIR");
			System.exit(2);
		}
		final File out = new File(args[1]);
		if (!out.isDirectory() && !out.mkdirs()) {
			System.err.println("KiekerTraceCheck: cannot create " + out);
			System.exit(2);
		}
		final AnalysisController ac = new AnalysisController();

		final Configuration readerConf = new Configuration();
		readerConf.setProperty(FSReader.CONFIG_PROPERTY_NAME_INPUTDIRS, Configuration.toProperty(new String[] { args[0] }));
		readerConf.setProperty(FSReader.CONFIG_PROPERTY_NAME_IGNORE_UNKNOWN_RECORD_TYPES, "true");
		final FSReader reader = new FSReader(readerConf, ac);

		final CountingFilter allRecords = new CountingFilter(new Configuration(), ac);
		ac.connect(reader, FSReader.OUTPUT_PORT_NAME_RECORDS, allRecords, CountingFilter.INPUT_PORT_NAME_EVENTS);

		final Configuration tsConf = new Configuration();
		tsConf.setProperty(TimestampFilter.CONFIG_PROPERTY_NAME_IGNORE_BEFORE_TIMESTAMP, TimestampFilter.CONFIG_PROPERTY_VALUE_MIN_TIMESTAMP);
		tsConf.setProperty(TimestampFilter.CONFIG_PROPERTY_NAME_IGNORE_AFTER_TIMESTAMP, TimestampFilter.CONFIG_PROPERTY_VALUE_MAX_TIMESTAMP);
		final TimestampFilter timestamps = new TimestampFilter(tsConf, ac);
		ac.connect(allRecords, CountingFilter.OUTPUT_PORT_NAME_RELAYED_EVENTS, timestamps, TimestampFilter.INPUT_PORT_NAME_EXECUTION);

		final Configuration idConf = new Configuration();
		idConf.setProperty(TraceIdFilter.CONFIG_PROPERTY_NAME_SELECT_ALL_TRACES, "true");
		final TraceIdFilter traceIds = new TraceIdFilter(idConf, ac);
		ac.connect(timestamps, TimestampFilter.OUTPUT_PORT_NAME_WITHIN_PERIOD, traceIds, TraceIdFilter.INPUT_PORT_NAME_COMBINED);

		final CountingFilter executions = new CountingFilter(new Configuration(), ac);
		ac.connect(traceIds, TraceIdFilter.OUTPUT_PORT_NAME_MATCH, executions, CountingFilter.INPUT_PORT_NAME_EVENTS);

		final SystemModelRepository model = new SystemModelRepository(new Configuration(), ac);
		final ExecutionRecordTransformationFilter transform = new ExecutionRecordTransformationFilter(new Configuration(), ac);
		ac.connect(executions, CountingFilter.OUTPUT_PORT_NAME_RELAYED_EVENTS, transform,
				ExecutionRecordTransformationFilter.INPUT_PORT_NAME_RECORDS);
		ac.connect(transform, AbstractTraceAnalysisFilter.REPOSITORY_PORT_NAME_SYSTEM_MODEL, model);

		final Configuration recConf = new Configuration();
		recConf.setProperty(TraceReconstructionFilter.CONFIG_PROPERTY_NAME_TIMEUNIT, "MILLISECONDS");
		recConf.setProperty(TraceReconstructionFilter.CONFIG_PROPERTY_NAME_MAX_TRACE_DURATION, Long.toString(10L * 60 * 1000));
		recConf.setProperty(TraceReconstructionFilter.CONFIG_PROPERTY_NAME_IGNORE_INVALID_TRACES, "false");
		final TraceReconstructionFilter reconstruction = new TraceReconstructionFilter(recConf, ac);
		ac.connect(reconstruction, AbstractTraceAnalysisFilter.REPOSITORY_PORT_NAME_SYSTEM_MODEL, model);
		ac.connect(transform, ExecutionRecordTransformationFilter.OUTPUT_PORT_NAME_EXECUTIONS, reconstruction,
				TraceReconstructionFilter.INPUT_PORT_NAME_EXECUTIONS);

		final ExecutionTraceWriterFilter execWriter = new ExecutionTraceWriterFilter(
				outputFile(ExecutionTraceWriterFilter.CONFIG_PROPERTY_NAME_OUTPUT_FN, out, "executionTraces.txt"), ac);
		ac.connect(reconstruction, TraceReconstructionFilter.OUTPUT_PORT_NAME_EXECUTION_TRACE, execWriter,
				ExecutionTraceWriterFilter.INPUT_PORT_NAME_EXECUTION_TRACES);
		ac.connect(execWriter, AbstractTraceAnalysisFilter.REPOSITORY_PORT_NAME_SYSTEM_MODEL, model);

		final MessageTraceWriterFilter msgWriter = new MessageTraceWriterFilter(
				outputFile(MessageTraceWriterFilter.CONFIG_PROPERTY_NAME_OUTPUT_FN, out, "messageTraces.txt"), ac);
		ac.connect(reconstruction, TraceReconstructionFilter.OUTPUT_PORT_NAME_MESSAGE_TRACE, msgWriter,
				AbstractMessageTraceProcessingFilter.INPUT_PORT_NAME_MESSAGE_TRACES);
		ac.connect(msgWriter, AbstractTraceAnalysisFilter.REPOSITORY_PORT_NAME_SYSTEM_MODEL, model);

		final InvalidExecutionTraceWriterFilter invalidWriter = new InvalidExecutionTraceWriterFilter(
				outputFile(InvalidExecutionTraceWriterFilter.CONFIG_PROPERTY_NAME_OUTPUT_FN, out, "invalidTraceArtifacts.txt"), ac);
		ac.connect(reconstruction, TraceReconstructionFilter.OUTPUT_PORT_NAME_INVALID_EXECUTION_TRACE, invalidWriter,
				InvalidExecutionTraceWriterFilter.INPUT_PORT_NAME_INVALID_EXECUTION_TRACES);
		ac.connect(invalidWriter, AbstractTraceAnalysisFilter.REPOSITORY_PORT_NAME_SYSTEM_MODEL, model);

		ac.run();

		final AnalysisController.STATE state = ac.getState();
		System.out.println("kieker-check records=" + allRecords.getMessageCount() + " executions=" + executions.getMessageCount()
				+ " traces=" + reconstruction.getTotalCount() + " valid=" + reconstruction.getSuccessCount()
				+ " invalid=" + reconstruction.getErrorCount() + " exec_traces_written=" + execWriter.getSuccessCount()
				+ " msg_traces_written=" + msgWriter.getSuccessCount() + " invalid_written=" + invalidWriter.getTotalCount()
				+ " state=" + state);
		final boolean ok = state == AnalysisController.STATE.TERMINATED && reconstruction.getErrorCount() == 0
				&& invalidWriter.getTotalCount() == 0;
		System.exit(ok ? 0 : 1);
	}
}
