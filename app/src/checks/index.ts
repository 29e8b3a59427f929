/**
 * Checks: what the GitHub App posts as check runs and the Action writes to its job summary. One
 * package at a time: lint, the service's reconciliation, a conclusion, annotations on file and
 * line, and a Markdown report kept under a byte ceiling.
 */
export { AnnotationLevel, type CheckAnnotation, checkAnnotations } from "./check-annotations.ts";
export {
  askService,
  type CheckPackageOptions,
  checkPackage,
  type PackageCheck,
  type ServiceVerdict,
} from "./check-package.ts";
export { checkRepository, type RepositoryCheck } from "./check-repository.ts";
export {
  CheckConclusion,
  type CheckCounts,
  checkConclusion,
  checkCounts,
  checkTitle,
  WARNING_NOTE_CODES,
} from "./check-verdict.ts";
export { CHECK_SUMMARY_MAX_BYTES, formatCheckSummary, type SummaryOptions } from "./format-check-summary.ts";
export { type PublishedRow, type PublishOutcome, publishValidated } from "./publish-validated.ts";
export {
  mergeValidations,
  type PackageValidation,
  type ValidatedShard,
  validatePackage,
} from "./validate-package.ts";
