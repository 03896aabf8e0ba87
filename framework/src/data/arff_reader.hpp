#pragma once
// ARFF data sets (arff_format.hpp) as Datasets, private to the data readers. The target is the
// attribute named by DataOptions::target, else the last one (Weka's class). A numeric target is
// coded as a CSV column of numbers; a nominal or string target is a column of text labels
// (classes: the labels that occur, in increasing byte order, as from CSV, so the same data as
// CSV and as ARFF give the same model). Inputs are the numeric attributes, named as declared,
// and the nominal ones coded 1-of-C by the categories that occur (radial/core/input_coding.hpp);
// `coding` (prediction) codes nominal inputs by a model's categories.

#include <filesystem>
#include <string>
#include <vector>

#include "radial/data/data_reader.hpp"

namespace radial::data {

Dataset read_arff(const std::filesystem::path& file, const DataOptions& options);

// The inputs of a model with `feature_names`, matched to attributes by name (others ignored,
// the class attribute too, which Weka test files often leave as `?`).
Matrix read_arff_inputs(const std::filesystem::path& file,
                        const std::vector<std::string>& feature_names,
                        const InputCoding* coding = nullptr, bool allow_missing = false);

// This rank's shard of the rows (read_dataset_shard's promises: every rank reads the header,
// then the lines that start in its byte range of the data; line numbers those of the whole
// file; rows moved onto block boundaries). Collective; with one rank the functions above.
Dataset read_arff_shard(const std::filesystem::path& file, const DataOptions& options);
Matrix read_arff_inputs_shard(const std::filesystem::path& file,
                              const std::vector<std::string>& feature_names,
                              const InputCoding* coding = nullptr, bool allow_missing = false);

}  // namespace radial::data
