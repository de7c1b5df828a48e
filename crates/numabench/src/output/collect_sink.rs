//! A sink that keeps a copy of every record, for a command that says
//! something about its own results at the end (`characterize`'s summary).

use super::metadata::RunMetadata;
use super::record::Record;
use super::sink::Sink;
use std::cell::RefCell;
use std::io;
use std::rc::Rc;

/// Keeps every record it is sent; [`CollectSink::records`] reads them from
/// a clone while the pipeline holds the sink.
#[derive(Debug, Clone, Default)]
pub struct CollectSink {
    records: Rc<RefCell<Vec<Record>>>,
}

impl CollectSink {
    /// A pipeline for tests whose only sink collects, with the metadata of
    /// a run on `topology`, and a handle to read what it collected.
    #[cfg(test)]
    pub fn pipeline(topology: &crate::topology::Machine) -> (super::Pipeline, CollectSink) {
        use super::CollectRunMetadata;
        let collected = CollectSink::default();
        let metadata = super::RunMetadata::collect(vec!["test".into()], topology);
        let pipeline = super::Pipeline::with_sinks(vec![Box::new(collected.clone())], &metadata)
            .expect("a pipeline without files opens");
        (pipeline, collected)
    }

    /// The records sent so far.
    pub fn records(&self) -> Vec<Record> {
        self.records.borrow().clone()
    }
}

impl Sink for CollectSink {
    fn begin(&mut self, _: &RunMetadata) -> io::Result<()> {
        Ok(())
    }

    fn record(&mut self, record: &Record) -> io::Result<()> {
        self.records.borrow_mut().push(record.clone());
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}
