import { useState } from "react";
import { downloadFile } from "../../api/download";
import { ErrorMessage } from "./ErrorMessage";

interface DownloadButtonProps {
  path: string;
  fallbackName: string;
  label: string;
}

/** A button that downloads a file the API serves (with the API key, when one is set). */
export function DownloadButton({ path, fallbackName, label }: DownloadButtonProps) {
  const [error, setError] = useState<unknown>();
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setError(undefined);
          downloadFile(path, fallbackName).catch(setError);
        }}
      >
        {label}
      </button>
      {error !== undefined && <ErrorMessage error={error} what={`Cannot download ${fallbackName}`} />}
    </>
  );
}
