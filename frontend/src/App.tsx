import { NavLink, Route, Routes, useLocation } from "react-router";
import { ApiKeyBanner } from "./components/common/ApiKeyBanner";
import { PageErrorBoundary } from "./components/common/PageErrorBoundary";
import { ComparePage } from "./pages/ComparePage";
import { EvaluationPage } from "./pages/EvaluationPage";
import { EvaluationsPage } from "./pages/EvaluationsPage";
import { GradersPage } from "./pages/GradersPage";
import { GridPage } from "./pages/GridPage";
import { NewEvaluationPage } from "./pages/NewEvaluationPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { SuitePage } from "./pages/SuitePage";
import { SuitesPage } from "./pages/SuitesPage";

/** The page frame (navigation) and the route of every screen. */
export function App() {
  const { pathname } = useLocation();
  return (
    <div className="app">
      <header className="top-bar">
        <NavLink to="/" className="brand">
          Assay
        </NavLink>
        <nav aria-label="Main">
          <NavLink to="/evaluations" end={false}>
            Evaluations
          </NavLink>
          <NavLink to="/suites">Suites</NavLink>
          <NavLink to="/graders">Graders</NavLink>
          <NavLink to="/compare">Compare</NavLink>
        </nav>
        <NavLink to="/evaluations/new" className="button primary">
          New evaluation
        </NavLink>
      </header>
      <ApiKeyBanner />
      <main>
        {/* Keyed by the route: a screen that failed is left behind by moving to another one. */}
        <PageErrorBoundary key={pathname}>
          <Routes>
            <Route path="/" element={<EvaluationsPage />} />
            <Route path="/evaluations" element={<EvaluationsPage />} />
            <Route path="/evaluations/new" element={<NewEvaluationPage />} />
            <Route path="/evaluations/:evaluationId" element={<EvaluationPage />} />
            <Route path="/compare" element={<ComparePage />} />
            <Route path="/suites" element={<SuitesPage />} />
            <Route path="/suites/:suiteId" element={<SuitePage />} />
            <Route path="/suites/:suiteId/side-by-side" element={<GridPage />} />
            <Route path="/graders" element={<GradersPage />} />
            <Route path="/graders/:graderId" element={<GradersPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Routes>
        </PageErrorBoundary>
      </main>
    </div>
  );
}
