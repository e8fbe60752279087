// Overview. For now: the process's health; workspace counts and recent events arrive with the console issue.
import { HealthStatus } from '../../components/health-status';

export default function OverviewPage() {
  return (
    <>
      <h1>Overview</h1>
      <HealthStatus />
    </>
  );
}
