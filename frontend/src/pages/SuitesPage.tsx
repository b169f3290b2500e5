import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { useCreateSuite, useImportSuite, useSuites } from "../api/suites";
import { useDocumentTitle } from "../hooks";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { ProblemList } from "../components/common/ProblemList";
import { count, dateTime } from "../components/common/format";

/** Every suite, and the two ways to make one: create it empty, or import it from a file. */
export function SuitesPage() {
  const suites = useSuites(0, 500);
  useDocumentTitle("Suites");
  return (
    <section>
      <div className="page-header">
        <h2>Suites</h2>
      </div>
      <div className="two-columns">
        <CreateSuiteForm />
        <ImportSuiteForm />
      </div>
      {suites.isPending && <p className="muted">Loading…</p>}
      {suites.isError && <ErrorMessage error={suites.error} what="Cannot load suites" />}
      {suites.data && suites.data.suites.length === 0 && <p className="empty-state">No suites yet.</p>}
      {suites.data && suites.data.suites.length > 0 && (
        <div className="table-scroll">
        <table className="list" data-testid="suite-list">
          <thead>
            <tr>
              <th>Name</th>
              <th className="secondary">Description</th>
              <th>Cases</th>
              <th className="secondary">Updated</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {suites.data.suites.map((suite) => (
              <tr key={suite.id}>
                <td>
                  <Link to={`/suites/${suite.id}`}>{suite.name}</Link>
                </td>
                <td className="muted secondary">{suite.description}</td>
                <td>{count(suite.case_count)}</td>
                <td className="secondary">{dateTime(suite.updated_at)}</td>
                <td>
                  <Link to={`/evaluations/new?suite=${suite.id}`}>Evaluate</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}

function CreateSuiteForm() {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useCreateSuite();
  const navigate = useNavigate();
  return (
    <form
      className="panel"
      aria-label="Create a suite"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate({ name, description }, { onSuccess: (suite) => navigate(`/suites/${suite.id}`) });
      }}
    >
      <h3>Create a suite</h3>
      <div className="field">
        <label htmlFor="suite-name">Name</label>
        <input id="suite-name" value={name} required onChange={(event) => setName(event.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="suite-description">Description</label>
        <input id="suite-description" value={description} onChange={(event) => setDescription(event.target.value)} />
      </div>
      {create.isError && <ProblemList error={create.error} what="Cannot create the suite" />}
      <button type="submit" className="primary" disabled={create.isPending || name.trim() === ""}>
        Create
      </button>
    </form>
  );
}

function ImportSuiteForm() {
  const [file, setFile] = useState<File | undefined>();
  const [name, setName] = useState("");
  const importSuite = useImportSuite();
  const navigate = useNavigate();
  return (
    <form
      className="panel"
      aria-label="Import a suite"
      onSubmit={(event) => {
        event.preventDefault();
        if (file) importSuite.mutate({ file, name }, { onSuccess: (suite) => navigate(`/suites/${suite.id}`) });
      }}
    >
      <h3>Import a suite</h3>
      <div className="field">
        <label htmlFor="import-file">File (.jsonl, .csv or .json)</label>
        <input
          id="import-file"
          type="file"
          accept=".jsonl,.csv,.json,application/json,text/csv"
          onChange={(event) => setFile(event.target.files?.[0])}
        />
        <p className="hint">
          One case per line/row with <code>input</code> and <code>expected_output</code> (and optional <code>metadata</code>).
          A <code>key</code> (or <code>id</code>) names the case; other fields, such as <code>lang</code>, go into its metadata.
        </p>
      </div>
      <div className="field">
        <label htmlFor="import-name">Name (default: from the file)</label>
        <input id="import-name" value={name} onChange={(event) => setName(event.target.value)} />
      </div>
      {importSuite.isError && <ProblemList error={importSuite.error} what="Cannot import the file" />}
      <button type="submit" className="primary" disabled={importSuite.isPending || !file}>
        {importSuite.isPending ? "Importing…" : "Import"}
      </button>
    </form>
  );
}
